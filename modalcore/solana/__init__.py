"""Solana pieces shared by the engine's services, the local dev chain and the tests: program ids,
the transactions a send builds (with `solders`), and the local dev chain (LiteSVM behind JSON-RPC)."""
