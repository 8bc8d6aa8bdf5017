"""Server side of Sign-In with Ethereum (behaviour.md §3, §4, §7).

Two halves, one per layer of the import contract: `domain/` (pure) and `backend/` (I/O).

- `domain.message`: EIP-4361 text, `SiwxMessage` (pure: safe to use in update functions)
- `backend.verify`: signature, nonce, domain, uri, chain and time checks (EOA and EIP-1271)
- `backend.store`: nonces and sessions (`SiwxStore`; `DurableSiwxStore`, alias `SqliteSiwxStore`: a SQLite file or the shared PostgreSQL)
- `backend.tokens`: session tokens a host verifies offline with eth-account
- `backend.service`: `siwx_services(store, http, signer)`, the runtime's `siwx.*` services
- `backend.http`: `routes(store, engine_address=...)`, GET/POST /v1/sessions/{address}[/revoke]
"""
