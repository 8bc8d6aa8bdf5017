"""WalletConnect v2 Sign protocol, dApp side (the engine is the dApp's sign client).

Sans-IO where possible. Two halves, one per layer of the import contract: `domain/` (pure:
`sign_rpc`, `errors`, `proposal`, `auth`, `qr`) and `backend/` (the rest):

- `crypto`: X25519 keys, HKDF-SHA256 session keys, topics, type 0 / type 1 envelopes;
- `didjwt`: the did:key Ed25519 JWT a client presents to the relay;
- `uri`: the `wc:` pairing URI;
- `jsonrpc`, `sign_rpc`, `tags`, `errors`: JSON-RPC messages, the typed sign RPC params and
  results, the IRN tags and TTLs, the SDK error codes;
- `proposal`: the session proposal built from the host's CAIP-2 networks;
- `state`, `core`: the dApp's pairings and sessions as plain data, and the pure protocol steps;
- `relay_client`: one relay connection per process multiplexing every topic (websockets);
- `signclient`: the async service tying the core to the relay;
- `relay`: a local relay for development and tests (`python -m modalcore_dev.walletconnect_relay`);
- `qr`: the QR module matrix of a URI (segno).
"""
