"""Keys, topics and envelopes against vectors computed by the official SDK code
(walletpeer/vectors.mjs, @walletconnect/utils 2.25.0), plus round trips and failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modalcore.walletconnect.backend.crypto import (EnvelopeError, KeyPair, decode_envelope, derive_sym_key,
                                            generate_sym_key, open_envelope, seal, topic_of, unseal)

VECTORS = json.loads((Path(__file__).parent / "sdk_vectors.json").read_text())


def test_public_keys_match_the_sdk() -> None:
    assert KeyPair.from_private(VECTORS["selfPrivate"]).public_key == VECTORS["selfPublic"]
    assert KeyPair.from_private(VECTORS["peerPrivate"]).public_key == VECTORS["peerPublic"]


def test_session_key_is_hkdf_of_x25519_as_the_sdk_derives_it() -> None:
    assert derive_sym_key(VECTORS["selfPrivate"], VECTORS["peerPublic"]) == VECTORS["symKey"]
    assert derive_sym_key(VECTORS["peerPrivate"], VECTORS["selfPublic"]) == VECTORS["symKeyFromPeer"]


def test_topic_is_sha256_of_the_key_bytes() -> None:
    assert topic_of(VECTORS["symKey"]) == VECTORS["topic"]


def test_type_0_envelope_matches_the_sdk_byte_for_byte() -> None:
    sealed = seal(VECTORS["message"], VECTORS["symKey"], iv=bytes.fromhex(VECTORS["iv"]))
    assert sealed == VECTORS["type0"]
    assert unseal(VECTORS["type0"], VECTORS["symKey"]) == VECTORS["message"]


def test_type_1_envelope_carries_the_sender_key_and_matches_the_sdk() -> None:
    sealed = seal(VECTORS["message"], VECTORS["symKey"], iv=bytes.fromhex(VECTORS["iv"]),
                  sender_public_hex=VECTORS["selfPublic"])
    assert sealed == VECTORS["type1"]
    envelope = decode_envelope(VECTORS["type1"])
    assert envelope.type == 1 and envelope.sender_public_key == VECTORS["selfPublic"]
    assert envelope.sender_public_key is not None
    # the receiver derives the key from the sender's public key in the envelope
    key = derive_sym_key(VECTORS["peerPrivate"], envelope.sender_public_key)
    assert open_envelope(envelope, key) == VECTORS["message"]


def test_round_trip_with_random_keys_and_ivs() -> None:
    a, b = KeyPair.generate(), KeyPair.generate()
    key = derive_sym_key(a.private_key, b.public_key)
    assert key == derive_sym_key(b.private_key, a.public_key)
    text = json.dumps({"emoji": "é🙂", "n": 1})
    first, second = seal(text, key), seal(text, key)
    assert first != second  # a fresh IV each time
    assert unseal(first, key) == unseal(second, key) == text


@pytest.mark.parametrize("message", ["", "not base64!", "AgAAAA==", "AA=="])
def test_malformed_envelopes_raise_a_typed_error(message: str) -> None:
    with pytest.raises(EnvelopeError):
        unseal(message, generate_sym_key())


def test_a_wrong_key_does_not_open_an_envelope() -> None:
    with pytest.raises(EnvelopeError):
        unseal(VECTORS["type0"], generate_sym_key())
