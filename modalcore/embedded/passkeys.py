"""Passkeys (issue 43 §3): WebAuthn credentials an embedded account adds, then signs in and
approves with, on any device that holds them.

Every ceremony runs in the engine-origin frame: the relying party id is the engine's host, the
origin the engine's own. The engine issues each challenge and knows what it binds:

- registration and sign-in: a token `{at}.{rand}.{mac}`, the engine's MAC over (purpose,
  session, time, randomness), valid for CHALLENGE_TTL_MS;
- an approval: the SHA-256 of the approval text (server/approval.py), which names the session,
  the request, the request's digest, the engine's one-time nonce, what the frame saw and the
  hash of the approval tree drawn; user verification is required.

Each challenge is spent once (the spent ones are kept in the embedded db until they expire),
and an assertion's signature counter must grow when the authenticator keeps one: a cloned or
replayed assertion is refused.

A passkey is discoverable (a resident key): signing in from Connect names no account, and the
engine finds it from the assertion's credential id; the user handle it carries must be that
identity's (a random opaque id kept per identity, or for passkeys added before it existed, the
hash `legacy_user_handle`). The signature, the relying party id hash, the flags and the
attestation are checked by `webauthn` (py_webauthn); the checks before it only name the typed
refusal. At most MAX_PER_IDENTITY passkeys per identity (the oldest is dropped).
"""

from __future__ import annotations

import base64
import binascii
import enum
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import decode_credential_public_key, decoded_public_key_to_cryptography
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.verify_signature import verify_signature

from ..durable.db import Durable
from ..durable.sqlite import SqliteDb

MAX_PER_IDENTITY = 16
MAX_CREDENTIAL_ID_CHARS = 1366  # 1023 bytes, WebAuthn's bound, base64url
MAX_CLIENT_DATA_BYTES = 1024
CHALLENGE_TTL_MS = 5 * 60_000
_FLAG_UP, _FLAG_UV = 0x01, 0x04

_SCHEMA = """
CREATE TABLE IF NOT EXISTS passkeys (
    credential_id TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    public_key BLOB NOT NULL,
    sign_count INTEGER NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS passkeys_identity ON passkeys (identity, created_ms);
CREATE TABLE IF NOT EXISTS passkey_users (
    identity TEXT PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS passkey_challenges (
    challenge TEXT PRIMARY KEY,
    expires_ms INTEGER NOT NULL
);
"""


class PasskeyRefused(enum.Enum):
    """Why a passkey's answer does not count (nothing is stored, signed or delivered)."""

    MALFORMED = "not a passkey answer"
    CHALLENGE = "not a challenge of this session and request"
    ORIGIN = "not made for this engine"
    UNKNOWN = "not a passkey of this wallet"
    USER_NOT_VERIFIED = "the passkey did not verify the visitor"
    REPLAYED = "this passkey answer was already used"
    SIGNATURE = "not signed by this passkey"


class PasskeyError(Exception):
    def __init__(self, why: PasskeyRefused) -> None:
        super().__init__(why.value)
        self.why = why


@dataclass(frozen=True)
class RelyingParty:
    """The engine as WebAuthn sees it: its origin and host; and the pages that may show its frame
    (a ceremony in a cross-origin frame names the top page: it must be one of these)."""

    origin: str
    rp_id: str
    top_origins: tuple[str, ...] = ()

    @classmethod
    def of(cls, origin: str, top_origins: tuple[str, ...] = ()) -> RelyingParty:
        parts = urlsplit(origin)
        return cls(origin=f"{parts.scheme}://{parts.netloc}", rp_id=parts.hostname or "", top_origins=top_origins)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: object, limit: int) -> bytes:
    if not isinstance(text, str) or not text or len(text) > limit or not all(c.isalnum() or c in "-_" for c in text):
        raise PasskeyError(PasskeyRefused.MALFORMED)
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise PasskeyError(PasskeyRefused.MALFORMED) from None


def _mac(secret: bytes, purpose: str, session: str, at: str, rand: str) -> str:
    text = f"passkey-{purpose}\x00{session}\x00{at}\x00{rand}".encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()[:32]


def issue_challenge(secret: bytes, purpose: str, session: str, now_ms: int) -> bytes:
    """A registration ("register") or sign-in ("signin") challenge bound to the session."""
    rand = secrets.token_urlsafe(16)
    return f"{now_ms}.{rand}.{_mac(secret, purpose, session, str(now_ms), rand)}".encode()


def challenge_ok(secret: bytes, purpose: str, session: str, challenge: bytes, now_ms: int) -> bool:
    parts = challenge.decode("ascii", "replace").split(".")
    if len(parts) != 3 or not parts[0].isdigit() or len(parts[0]) > 16 or len(parts[1]) != 22:
        return False
    at, rand, mac = parts
    return (0 <= now_ms - int(at) < CHALLENGE_TTL_MS
            and hmac.compare_digest(mac, _mac(secret, purpose, session, at, rand)))


def legacy_user_handle(identity: str) -> str:
    """The user handle passkeys were created with before the opaque one (still accepted)."""
    return b64(hashlib.sha256(f"modalcore-passkey-user\x00{identity}".encode()).digest()[:16])


def approval_challenge(text: bytes) -> bytes:
    """An approval's challenge: the SHA-256 of what the device key would sign (approval_text)."""
    return hashlib.sha256(text).digest()


def _client_data(response: dict[str, object], kind: str, rp: RelyingParty) -> bytes:
    """The challenge the answer carries, after the type and origin checks (typed refusals)."""
    raw = unb64(response.get("clientDataJSON"), MAX_CLIENT_DATA_BYTES * 2)
    if len(raw) > MAX_CLIENT_DATA_BYTES:
        raise PasskeyError(PasskeyRefused.MALFORMED)
    try:
        data = json.loads(raw)
    except ValueError:
        raise PasskeyError(PasskeyRefused.MALFORMED) from None
    if not isinstance(data, dict) or data.get("type") != kind:
        raise PasskeyError(PasskeyRefused.MALFORMED)
    if data.get("origin") != rp.origin:
        raise PasskeyError(PasskeyRefused.ORIGIN)
    if data.get("crossOrigin") is True and data.get("topOrigin") not in (*rp.top_origins, rp.origin):
        raise PasskeyError(PasskeyRefused.ORIGIN)  # made in a frame that another site showed
    return unb64(data.get("challenge"), 256)


def challenge_of(answer: object, kind: str) -> bytes:
    """The challenge an answer ("webauthn.create" or "webauthn.get") says it signed, unchecked:
    the route checks it is one it issued for this session before anything else."""
    _, response, _ = _credential(answer)
    raw = unb64(response.get("clientDataJSON"), MAX_CLIENT_DATA_BYTES * 2)
    try:
        data = json.loads(raw)
    except ValueError:
        raise PasskeyError(PasskeyRefused.MALFORMED) from None
    if not isinstance(data, dict) or data.get("type") != kind:
        raise PasskeyError(PasskeyRefused.MALFORMED)
    return unb64(data.get("challenge"), 256)


def _credential(answer: object) -> tuple[dict[str, object], dict[str, object], str]:
    if not isinstance(answer, dict) or answer.get("type") != "public-key":
        raise PasskeyError(PasskeyRefused.MALFORMED)
    response = answer.get("response")
    if not isinstance(response, dict):
        raise PasskeyError(PasskeyRefused.MALFORMED)
    cred_id = answer.get("id")
    unb64(cred_id, MAX_CREDENTIAL_ID_CHARS)
    if answer.get("rawId", cred_id) != cred_id:
        raise PasskeyError(PasskeyRefused.MALFORMED)
    assert isinstance(cred_id, str)
    return answer, response, cred_id


def assertion_holds(public_key: bytes, answer: object, challenge: bytes) -> bool:
    """Checked again later (the audit log, ops/audit_show.py): `answer` is over `challenge` and the
    passkey whose COSE key is `public_key` signed it (the origin, counter and spending were the
    engine's checks when it counted)."""
    try:
        _, response, _ = _credential(answer)
        if challenge_of(answer, "webauthn.get") != challenge:
            return False
        auth = unb64(response.get("authenticatorData"), 2048)
        signature = unb64(response.get("signature"), 256)
        client = unb64(response.get("clientDataJSON"), MAX_CLIENT_DATA_BYTES * 2)
        decoded = decode_credential_public_key(public_key)
        verify_signature(public_key=decoded_public_key_to_cryptography(decoded), signature_alg=decoded.alg,
                         signature=signature, data=auth + hashlib.sha256(client).digest())
    except (PasskeyError, WebAuthnException, InvalidSignature, ValueError, TypeError, KeyError):
        return False
    return True


def _blob(value: object) -> bytes:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise PasskeyError(PasskeyRefused.UNKNOWN)
    return bytes(value)


class Passkeys:
    """The passkeys of the embedded accounts and the challenges spent, in the embedded db."""

    def __init__(self, path: Path | str | Durable = ":memory:") -> None:
        self._db = SqliteDb(path) if isinstance(path, (str, Path)) else path
        self._db.ensure(_SCHEMA)

    def _spend(self, challenge: bytes, now_ms: int) -> None:
        """Each challenge counts once (across workers and hosts sharing the store)."""
        self._db.execute("DELETE FROM passkey_challenges WHERE expires_ms <= ?", (now_ms,))
        cursor = self._db.execute("INSERT INTO passkey_challenges VALUES (?, ?) ON CONFLICT DO NOTHING",
                                  (b64(challenge), now_ms + CHALLENGE_TTL_MS))
        if cursor.rowcount != 1:
            raise PasskeyError(PasskeyRefused.REPLAYED)

    def count(self, identity: str) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM passkeys WHERE identity = ?", (identity,)).fetchone()
        return int(str(row[0])) if row else 0

    def public_key(self, credential_id: str) -> bytes | None:
        """The COSE public key of a stored passkey."""
        row = self._db.execute("SELECT public_key FROM passkeys WHERE credential_id = ?", (credential_id,)).fetchone()
        return _blob(row[0]) if row else None

    def credential_ids(self, identity: str) -> list[str]:
        rows = self._db.execute("SELECT credential_id FROM passkeys WHERE identity = ? ORDER BY created_ms",
                                (identity,)).fetchall()
        return [str(r[0]) for r in rows]

    def user_handle(self, identity: str) -> str:
        """The identity's WebAuthn user handle: 16 random bytes, made once, that name the account
        without saying who it is (the authenticator gives it back with a discoverable sign-in)."""
        self._db.execute("INSERT INTO passkey_users VALUES (?, ?) ON CONFLICT DO NOTHING",
                         (identity, b64(secrets.token_bytes(16))))
        row = self._db.execute("SELECT handle FROM passkey_users WHERE identity = ?", (identity,)).fetchone()
        assert row is not None  # inserted just above, or before
        return str(row[0])

    def owner(self, answer: object) -> str | None:
        """The identity the answer's credential id was registered for (nothing checked yet)."""
        _, _, cred_id = _credential(answer)
        row = self._db.execute("SELECT identity FROM passkeys WHERE credential_id = ?", (cred_id,)).fetchone()
        return str(row[0]) if row else None

    def _handle_ok(self, identity: str, handle: object) -> bool:
        """An assertion's user handle, when it carries one, names `identity`."""
        if handle in (None, ""):
            return True
        if not isinstance(handle, str) or len(handle) > 88:
            return False
        row = self._db.execute("SELECT handle FROM passkey_users WHERE identity = ?", (identity,)).fetchone()
        return hmac.compare_digest(handle, legacy_user_handle(identity)) or (
            row is not None and hmac.compare_digest(handle, str(row[0])))

    def register(self, identity: str, answer: object, expected: bytes, rp: RelyingParty, now_ms: int) -> str:
        """Stores the passkey the frame created for `identity` against the challenge `expected`
        (already checked to be this session's); returns its credential id, or PasskeyError."""
        credential, response, cred_id = _credential(answer)
        if _client_data(response, "webauthn.create", rp) != expected:
            raise PasskeyError(PasskeyRefused.CHALLENGE)
        unb64(response.get("attestationObject"), 2048)
        try:
            verified = verify_registration_response(
                credential={"id": cred_id, "rawId": cred_id, "type": "public-key",
                            "response": {"clientDataJSON": response["clientDataJSON"],
                                         "attestationObject": response["attestationObject"]}},
                expected_challenge=expected, expected_origin=rp.origin, expected_rp_id=rp.rp_id,
                require_user_verification=True)
        except (WebAuthnException, ValueError, KeyError, TypeError):
            raise PasskeyError(PasskeyRefused.SIGNATURE) from None
        self._spend(expected, now_ms)
        stored_id = b64(verified.credential_id)
        with self._db.transaction([f"passkeys:{stored_id}", f"passkeys:{identity}"]) as tx:
            taken = tx.execute("SELECT identity FROM passkeys WHERE credential_id = ?", (stored_id,)).fetchone()
            if taken is not None and taken[0] != identity:
                raise PasskeyError(PasskeyRefused.UNKNOWN)
            tx.execute("INSERT INTO passkeys VALUES (?, ?, ?, ?, ?) ON CONFLICT (credential_id) DO UPDATE SET "
                       "identity = excluded.identity, public_key = excluded.public_key, "
                       "sign_count = excluded.sign_count, created_ms = excluded.created_ms",
                       (stored_id, identity, verified.credential_public_key, verified.sign_count, now_ms))
            tx.execute(
                "DELETE FROM passkeys WHERE identity = ? AND credential_id NOT IN (SELECT credential_id FROM passkeys "
                "WHERE identity = ? ORDER BY created_ms DESC LIMIT ?)", (identity, identity, MAX_PER_IDENTITY))
        return stored_id

    def authenticate(self, answer: object, expected: bytes, rp: RelyingParty, now_ms: int,
                     identity: str | None = None) -> str:
        """The identity whose passkey signed `expected` (for `identity` only, when given), with
        the visitor verified; the challenge is spent and the counter moved. PasskeyError else."""
        credential, response, cred_id = _credential(answer)
        if _client_data(response, "webauthn.get", rp) != expected:
            raise PasskeyError(PasskeyRefused.CHALLENGE)
        auth_data = unb64(response.get("authenticatorData"), 2048)
        unb64(response.get("signature"), 256)
        if len(auth_data) < 37:
            raise PasskeyError(PasskeyRefused.MALFORMED)
        if not hmac.compare_digest(auth_data[:32], hashlib.sha256(rp.rp_id.encode()).digest()):
            raise PasskeyError(PasskeyRefused.ORIGIN)
        if auth_data[32] & (_FLAG_UP | _FLAG_UV) != _FLAG_UP | _FLAG_UV:
            raise PasskeyError(PasskeyRefused.USER_NOT_VERIFIED)
        row = self._db.execute("SELECT identity, public_key, sign_count FROM passkeys WHERE credential_id = ?",
                               (cred_id,)).fetchone()
        if row is None or (identity is not None and row[0] != identity):
            raise PasskeyError(PasskeyRefused.UNKNOWN)
        if not self._handle_ok(str(row[0]), response.get("userHandle")):
            raise PasskeyError(PasskeyRefused.UNKNOWN)  # the authenticator names another account
        owner, public_key, stored_count = str(row[0]), _blob(row[1]), int(str(row[2]))
        count = int.from_bytes(auth_data[33:37], "big")
        if (count or stored_count) and count <= stored_count:
            raise PasskeyError(PasskeyRefused.REPLAYED)  # a clone, or an answer seen before
        try:
            verify_authentication_response(
                credential={"id": cred_id, "rawId": cred_id, "type": "public-key",
                            "response": {k: response[k] for k in ("clientDataJSON", "authenticatorData", "signature")}},
                expected_challenge=expected, expected_rp_id=rp.rp_id, expected_origin=rp.origin,
                credential_public_key=public_key, credential_current_sign_count=stored_count,
                require_user_verification=True)
        except (WebAuthnException, ValueError, KeyError, TypeError):
            raise PasskeyError(PasskeyRefused.SIGNATURE) from None
        self._spend(expected, now_ms)
        moved = self._db.execute("UPDATE passkeys SET sign_count = ? WHERE credential_id = ? AND sign_count = ?",
                                 (count, cred_id, stored_count))
        if moved.rowcount != 1:
            raise PasskeyError(PasskeyRefused.REPLAYED)  # another answer of this passkey won the race
        return owner
