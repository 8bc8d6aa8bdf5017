"""A local Solana development chain: LiteSVM (the in-process Solana VM `solders` ships) behind a
Solana JSON-RPC endpoint, like the Hardhat nodes are for eip155. `python -m
modalcore_dev.solana_devchain --port N` serves it; tests start it on a free port
(`modalcore_dev.solana_devchain.pytest_plugin`). Production uses real RPC URLs; the engine's
Solana client (`modalcore/services/backend/solana_rpc.py`) does not know the difference."""
