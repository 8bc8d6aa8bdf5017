"""Resume tokens: `<session>.<expiry unix s>.<hex HMAC-SHA256>` (PROTOCOL.md, "Resume")."""

from __future__ import annotations

import hashlib
import hmac
import re

_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


class TokenError(ValueError):
    """A resume token that is malformed, forged or expired."""


def _mac(secret: bytes, session_id: str, expiry_s: int) -> str:
    return hmac.new(secret, f"{session_id}.{expiry_s}".encode(), hashlib.sha256).hexdigest()


def sign(secret: bytes, session_id: str, expiry_s: int) -> str:
    if not _SESSION_ID.match(session_id):
        raise ValueError("session ids are url-safe base64 without dots")
    return f"{session_id}.{expiry_s}.{_mac(secret, session_id, expiry_s)}"


def verify(secret: bytes, token: str, now_s: int) -> str:
    """The session id a valid, unexpired token names; TokenError otherwise."""
    parts = token.split(".")
    if len(parts) != 3:
        raise TokenError("malformed token")
    session_id, expiry_text, mac = parts
    if not _SESSION_ID.match(session_id) or not expiry_text.isdigit() or len(expiry_text) > 12:
        raise TokenError("malformed token")
    expiry_s = int(expiry_text)
    if not hmac.compare_digest(mac, _mac(secret, session_id, expiry_s)):
        raise TokenError("bad signature")
    if expiry_s < now_s:
        raise TokenError("expired token")
    return session_id
