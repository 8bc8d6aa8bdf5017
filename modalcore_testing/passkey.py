"""A software WebAuthn authenticator for tests (issue 43 §3): ES256 (P-256) credentials, "none"
attestation, a signature counter, answers in the JSON form a frame posts
(`PublicKeyCredential.toJSON()`'s fields)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SoftAuthenticator:
    """One credential; `user_verified=False` plays an authenticator that skipped the PIN or
    biometric; `counter=False` one that keeps no signature counter (always 0)."""

    def __init__(self, user_verified: bool = True, counter: bool = True, top_origin: str = "") -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = secrets.token_bytes(16)
        self.sign_count = 0
        self.user_verified = user_verified
        self.counter = counter
        self.top_origin = top_origin  # set: the ceremonies run in a frame that page shows
        self.user_handle = b""  # the user id the credential was created with (a resident key keeps it)

    @property
    def id(self) -> str:
        return b64(self.credential_id)

    def _cose(self) -> bytes:
        numbers = self.private.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})

    def _flags(self, attested: bool) -> int:
        return 0x01 | (0x04 if self.user_verified else 0) | (0x40 if attested else 0)

    def client_data(self, kind: str, challenge: bytes, origin: str) -> bytes:
        top = {"topOrigin": self.top_origin} if self.top_origin else {}
        return json.dumps({"type": kind, "challenge": b64(challenge), "origin": origin,
                           "crossOrigin": bool(self.top_origin), **top}).encode()

    def create(self, challenge: bytes, origin: str, rp_id: str, user_handle: bytes = b"") -> dict[str, Any]:
        """navigator.credentials.create's answer (`user_handle`: the relying party's user id,
        given back by every sign-in, as a discoverable credential does)."""
        self.user_handle = user_handle
        auth = (hashlib.sha256(rp_id.encode()).digest() + bytes([self._flags(True)]) + (0).to_bytes(4, "big")
                + bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id + self._cose())
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth})
        return {"id": self.id, "rawId": self.id, "type": "public-key",
                "response": {"clientDataJSON": b64(self.client_data("webauthn.create", challenge, origin)),
                             "attestationObject": b64(attestation)}}

    def get(self, challenge: bytes, origin: str, rp_id: str) -> dict[str, Any]:
        """navigator.credentials.get's answer (the counter moves first, as an authenticator's does)."""
        if self.counter:
            self.sign_count += 1
        auth = hashlib.sha256(rp_id.encode()).digest() + bytes([self._flags(False)]) + self.sign_count.to_bytes(4, "big")
        client = self.client_data("webauthn.get", challenge, origin)
        signature = self.private.sign(auth + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": self.id, "rawId": self.id, "type": "public-key",
                "response": {"clientDataJSON": b64(client), "authenticatorData": b64(auth),
                             "signature": b64(signature), "userHandle": b64(self.user_handle)}}
