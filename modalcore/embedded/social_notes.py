"""Where a social sign-in waits between its steps (issue 42): in the session store's notes
(store/notes.py), so the popup begun on host A may be called back on host B and confirmed on C.

- a pending sign-in (between popup and callback), named by the SHA-256 of its `state`, holds the
  provider, state, OIDC nonce, PKCE verifier, session, time, the frame's public key and bind
  digest; a grant (between callback and the frame's confirmation), named by the SHA-256 of its
  token (a bearer secret held by the popup page only), holds the `SocialResult` and its time;
- each is sealed with a key derived from the master key (`KeyVault.seal_note`, the note's kind
  and name as associated data): the store holds neither the verifier nor who signed in in clear,
  and a note cannot be forged or moved to another name;
- each is taken once (`notes.take`: of two hosts finishing it, one gets it), lasts
  PENDING_TTL_MS (checked on the time sealed inside, the caller's clock) and a kind is bounded
  to MAX_PENDING notes, the oldest dropped.

A store that cannot be reached: writing raises `NotesUnavailable`; reading answers "none" (the
sign-in is refused, one log line)."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict

from ..rules import limits as L
from ..store.base import SessionStore
from .keys import KeyVault
from .oidc import Pending

log = logging.getLogger(__name__)

MAX_PENDING = L.SOCIAL_PENDING
PENDING_TTL_MS = L.SOCIAL_PENDING_MS
PENDING, GRANT = "social-pending", "social-grant"
MAX_NOTE_BYTES = 16 * 1024  # a note read back larger is refused unread


class NotesUnavailable(Exception):
    """The session store did not keep the note (its outage)."""


def name_of(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SocialNotes:
    def __init__(self, store: SessionStore, vault: KeyVault) -> None:
        self.store = store
        self.vault = vault

    async def put(self, kind: str, token: str, value: dict[str, object], now: int) -> None:
        name = name_of(token)
        sealed = self.vault.seal_note(json.dumps(value, separators=(",", ":")).encode(), f"{kind}:{name}".encode())
        try:
            await self.store.notes.note(kind, name, sealed, now, PENDING_TTL_MS, MAX_PENDING)
        except Exception as error:  # the store's outage: typed for the caller
            log.warning("social sign-in not kept: %s", type(error).__name__)
            raise NotesUnavailable() from None

    async def get(self, kind: str, token: str, now: int, take: bool) -> dict[str, object] | None:
        """The note's value while it lasts (`take`: deleted in the same step), else None."""
        name = name_of(token)
        try:
            sealed = await (self.store.notes.take if take else self.store.notes.noted)(kind, name, now)
        except Exception as error:
            log.warning("social sign-in unreadable: %s", type(error).__name__)
            return None
        if sealed is None or len(sealed) > MAX_NOTE_BYTES:
            return None
        plain = self.vault.open_note(sealed, f"{kind}:{name}".encode())
        try:
            value = json.loads(plain) if plain is not None else None
        except ValueError:
            value = None
        at = value.get("at") if isinstance(value, dict) else None
        if not isinstance(value, dict) or not isinstance(at, int) or not 0 <= now - at < PENDING_TTL_MS:
            return None
        return value


def pending_value(pending: Pending, session: str, now: int, key: str, bind: str) -> dict[str, object]:
    return {"pending": asdict(pending), "session": session, "at": now, "key": key, "bind": bind}


def pending_of(value: dict[str, object]) -> tuple[Pending, str, int, str, str] | None:
    fields, at = value.get("pending"), value.get("at")
    if not isinstance(fields, dict) or not isinstance(at, int):
        return None
    try:
        return Pending(**fields), str(value["session"]), at, str(value["key"]), str(value["bind"])
    except (KeyError, TypeError):
        return None
