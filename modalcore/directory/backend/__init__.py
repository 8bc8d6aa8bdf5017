"""The wallet directory's I/O (the import contract's I/O layer): the hosted directory's client
(`hosted`), the `[directory]` source and the `directory` service (`source`), the engine's own
`/getWallets` and image routes (`routes`)."""
