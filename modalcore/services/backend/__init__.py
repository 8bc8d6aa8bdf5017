"""The services' implementations (the import contract's I/O layer): chain RPC, balances, history,
names, NFTs, send, simulation, swaps (`swap/`), buying crypto (`onramp/`), and the table the
runtime runs them from (`table`, `wiring`)."""
