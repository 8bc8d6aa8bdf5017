"""ERC-4337 smart accounts (issue 32): v0.7 UserOperations (`userop`, pure), the bundler's RPC
(`bundler`), the VerifyingPaymaster's signature (`paymaster`), the sponsoring policy (`policy`,
pure) and the SQLite count of each account's day budget (`ledger`), the `[smart_accounts]`
config (`config`) and sending calls as one operation (`send`)."""
