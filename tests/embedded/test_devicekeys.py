"""The registered frame keys (issue 27, modalcore/embedded/devicekeys.py): a key approves only
for the identity it was registered for, with WebCrypto's r || s signature over the very text;
at most 16 per identity (the oldest dropped); anything that is not a P-256 key is refused."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from modalcore.embedded.devicekeys import MAX_PER_IDENTITY, BadPublicKey, DeviceKeys, parse_public_key

from .device import DeviceKey


def test_a_key_verifies_only_its_identity_and_its_text() -> None:
    keys, device = DeviceKeys(), DeviceKey()
    key_id = keys.register("email:a@example.com", device.spki, 1)
    signature = device.sign(b"approve e1")
    assert keys.verify("email:a@example.com", key_id, b"approve e1", signature)
    assert not keys.verify("email:b@example.com", key_id, b"approve e1", signature)
    assert not keys.verify("email:a@example.com", key_id, b"approve e2", signature)
    assert not keys.verify("email:a@example.com", key_id, b"approve e1", DeviceKey().sign(b"approve e1"))
    assert not keys.verify("email:a@example.com", key_id, b"approve e1", signature[:-4])


def test_at_most_sixteen_keys_per_identity_the_oldest_dropped() -> None:
    keys = DeviceKeys()
    devices = [DeviceKey() for _ in range(MAX_PER_IDENTITY + 1)]
    ids = [keys.register("google:1", d.spki, n) for n, d in enumerate(devices)]
    assert keys.public_key("google:1", ids[0]) is None
    assert all(keys.public_key("google:1", i) is not None for i in ids[1:])


@pytest.mark.parametrize("text", ["", "AAAA", "!!!", "x" * 600,
                                  base64.urlsafe_b64encode(ed25519.Ed25519PrivateKey.generate().public_key()
                                                           .public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo))
                                  .decode()],
                         ids=["empty", "short", "not base64", "too long", "an Ed25519 key"])
def test_anything_but_a_p256_public_key_is_refused(text: str) -> None:
    with pytest.raises(BadPublicKey):
        parse_public_key(text)
    with pytest.raises(BadPublicKey):
        DeviceKeys().register("email:a@example.com", text, 1)
