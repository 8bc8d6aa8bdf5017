"""A browser's key as the engine-origin frame makes it (issue 27): ECDSA P-256, the public half
as base64url SubjectPublicKeyInfo, signatures as base64url r || s (WebCrypto's form). The tests
(tests/embedded/device.py) and the bench's embedded client (modalcore_dev/bench/embedded_client.py)
play the frame with it."""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from modalcore.server.approval_guard import MIN_SHOWN_MS
from modalcore_testing import TEST_ORIGIN
from modalcore_testing.passkey import b64

# what the frame's Approve says it saw (issue 38): shown the minimum time, by the test page
SEEN = f"visible {MIN_SHOWN_MS} {TEST_ORIGIN}"


class DeviceKey:
    """The frame's non-extractable WebCrypto key: P-256, SPKI public half, r || s signatures."""

    def __init__(self) -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.spki = b64(self.private.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo))

    def sign(self, text: bytes) -> str:
        r, s = decode_dss_signature(self.private.sign(text, ec.ECDSA(hashes.SHA256())))
        return b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
