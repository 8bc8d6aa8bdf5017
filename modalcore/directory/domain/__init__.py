"""The wallet directory's pure part (the import contract's domain layer): the Wallet record
(`wallets`), `/getWallets` queries (`query`), platform rules (`platform`), monograms (`monogram`)."""
