"""Data files the engine reads at run time, shipped in the wheel and read through
`importlib.resources` (never relative to a repository checkout):

- `wallets.json`: the curated wallet directory (`directory.wallets.DEFAULT_FILE`);
- `transfer_interfaces.json`: which `transfer` interface an ERC-20 contract has
  (`services.domain.transfer.TRANSFER_INTERFACES_PATH`).
"""
