"""What `make run` and the tests start beside the engine, never shipped in its wheel: the dev
chains, the local WalletConnect and Farcaster relays, dev mail and OpenID, the local onramp, the
dev-chain proxy, the demo, the benches and latency tooling. It imports `modalcore`; `modalcore`
never imports it (the import contract in pyproject.toml)."""
