"""Resume tokens: `<session>.<generation>.<expiry unix s>.<hex HMAC-SHA256>` (PROTOCOL.md, "Resume").

The MAC also covers the project id and the origin the token was issued to, which the token does
not carry: presented for another project or from another origin, it does not verify. Any token
that is not exactly what `sign` writes raises `TokenError` (never another exception type).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
# a number as `sign` writes it: no sign, no leading zero (one token, one spelling: issue 27)
_NUMBER = re.compile(r"0|[1-9][0-9]{0,11}")
_MAC = re.compile(r"[0-9a-f]{64}")
MAX_TOKEN_CHARS = 512


class TokenError(ValueError):
    """A resume token that is malformed, forged, expired or issued to someone else."""


@dataclass(frozen=True)
class Claim:
    """What a valid token says: the session and the token's generation."""

    session_id: str
    generation: int


def audience(project_id: str, origin: str) -> str:
    """Who a token is for: the project and the page's origin (as the Origin header says it)."""
    return f"{project_id}\n{origin.strip().lower()}"


def _mac(secret: bytes, session_id: str, generation: int, expiry_s: int, aud: str) -> str:
    text = f"{session_id}.{generation}.{expiry_s}\n{aud}"
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()


def sign(secret: bytes, session_id: str, generation: int, expiry_s: int, aud: str) -> str:
    if not _SESSION_ID.fullmatch(session_id):
        raise ValueError("session ids are url-safe base64 without dots")
    if generation < 0 or expiry_s < 0:
        raise ValueError("generation and expiry are non-negative")
    return f"{session_id}.{generation}.{expiry_s}.{_mac(secret, session_id, generation, expiry_s, aud)}"


def verify(secret: bytes, token: object, now_s: int, aud: str) -> Claim:
    """The session and generation a valid, unexpired token for `aud` names; TokenError otherwise."""
    if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_CHARS:
        raise TokenError("malformed token")
    parts = token.split(".")
    if len(parts) != 4:
        raise TokenError("malformed token")
    session_id, generation_text, expiry_text, mac = parts
    # Checked before anything is compared: compare_digest takes ASCII strings only.
    if not (_SESSION_ID.fullmatch(session_id) and _NUMBER.fullmatch(generation_text)
            and _NUMBER.fullmatch(expiry_text) and _MAC.fullmatch(mac)):
        raise TokenError("malformed token")
    generation, expiry_s = int(generation_text), int(expiry_text)
    expected = _mac(secret, session_id, generation, expiry_s, aud)
    if not hmac.compare_digest(mac.encode("ascii"), expected.encode("ascii")):
        raise TokenError("bad signature (forged, or issued to another origin or project)")
    if expiry_s < now_s:
        raise TokenError("expired token")
    return Claim(session_id, generation)
