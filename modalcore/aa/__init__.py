"""ERC-4337 smart accounts (issue 32): v0.7 UserOperations (`userop`, pure), the bundler's RPC
(`bundler`), the VerifyingPaymaster's signature (`paymaster`), the sponsoring policy (`policy`,
pure) and its per-account day budget's SQLite count (`ledger`), the `[smart_accounts]` config (`config`) and sending calls as one operation (`send`)."""
