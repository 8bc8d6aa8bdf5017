"""WalletConnect's pure part (the import contract's domain layer: the slices read it): the sign
RPC's typed params (`sign_rpc`), the SDK's error codes (`errors`), the session proposal
(`proposal`), the one-click auth payload (`auth`) and the pairing QR (`qr`)."""
