"""WalletConnect's sign client and relay connection (the import contract's I/O layer): keys and
envelopes (`crypto`, `didjwt`), the relay client, the sans-IO core and its steps, the sign
client around it, and the state kept at rest."""
