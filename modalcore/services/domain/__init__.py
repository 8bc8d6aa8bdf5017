"""What a slice's `Call` names, pure (the import contract's domain layer): the services' typed
handles (`handles`), their arguments and results (`shapes`, `solana_shapes`, `swap_types`), what a
token send asks the wallet for (`transfer`) and the onramp's fallbacks (`onramp_defaults`)."""
