"""Sign-in's I/O (the import contract's I/O layer): signature checks (`verify`, `erc6492`,
`solana_verify`), the nonce and session store (`store`), session tokens (`tokens`), the runtime's
`siwx.*` services (`service`) and the host's HTTP routes (`http`)."""
