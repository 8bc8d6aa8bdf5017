"""WalletConnect state at rest: AES-256-GCM under a key derived from the operator's secret,
bound to its store key (walletconnect/backend/atrest.py)."""

from __future__ import annotations

import pytest

from modalcore.walletconnect.backend.atrest import SealedStateError, derive_key, open_state, seal_state

STATE = b'{"sessions":{"t":{"sym_key":"' + b"ab" * 32 + b'"}}}'


def test_sealed_state_opens_only_with_the_same_secret_and_name() -> None:
    """Rule: key material is encrypted at rest; another secret, another session's store key or
    one altered byte does not open it (a clear typed error, nothing half-read)."""
    key = derive_key(b"operator secret")
    blob = seal_state(key, "wc:s1", STATE)
    assert b"ab" * 8 not in blob and open_state(key, "wc:s1", blob) == STATE
    assert seal_state(key, "wc:s1", STATE) != blob  # a fresh nonce per write
    with pytest.raises(SealedStateError):
        open_state(derive_key(b"another secret"), "wc:s1", blob)
    with pytest.raises(SealedStateError):
        open_state(key, "wc:s2", blob)  # copied under another session's key
    altered = blob[:-1] + bytes([blob[-1] ^ 1])
    with pytest.raises(SealedStateError):
        open_state(key, "wc:s1", altered)
    with pytest.raises(SealedStateError):
        open_state(key, "wc:s1", blob[:10])
    with pytest.raises(ValueError):
        derive_key(b"")
