"""A browser's key as the engine-origin frame makes it (issue 27): ECDSA P-256, the public half
as base64url SubjectPublicKeyInfo, signatures as base64url r || s (WebCrypto's form)."""

from __future__ import annotations

import base64
import secrets

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class DeviceKey:
    def __init__(self) -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.spki = b64(self.private.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo))

    def sign(self, text: bytes) -> str:
        r, s = decode_dss_signature(self.private.sign(text, ec.ECDSA(hashes.SHA256())))
        return b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def frame_headers(base_url: str) -> dict[str, str]:
    """What Chromium sends with a fetch from a page of the engine's own origin (issue 38): the
    sign-in and registration POSTs take nothing else."""
    return {"Origin": base_url.rstrip("/"), "Sec-Fetch-Site": "same-origin"}


def flow_value() -> str:
    """The value the social frame's script makes for one sign-in: 32 random bytes, base64url."""
    return b64(secrets.token_bytes(32))


def registration(session: str, code: str, device: DeviceKey) -> dict[str, str]:
    """The body the sign-in frame posts with a code: its key signed for this session and code."""
    text = f"modalcore-register\n{session}\n{code}".encode()
    return {"session": session, "code": code, "public_key": device.spki, "signature": device.sign(text)}
