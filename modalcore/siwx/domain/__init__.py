"""Sign-in messages, pure (the import contract's domain layer: the slices read them): the
EIP-4361 grammar (`grammar`), `SiwxMessage` (`message`) and the Solana sign-in text (`solana`)."""
