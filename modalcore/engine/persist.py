"""A session's persistent state as msgpack bytes (never pickle).

What survives a restart: the model (via `model_to_data`), the sequence counters, the tree
version, the remembered intent ids and their outcomes, the rate-limit bucket, the effects
pending in the browser, what the host and theme frames last said, whether an intent was ever
applied, the resume-token generation, and the timers still due.
The frame ring does not survive: a client that rejoins a restored session gets a snapshot.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgpack

from ..slices.model import model_from_data, model_to_data
from ..core.msg import Msg, msg_from_data, msg_to_data
from .session import Session

FORMAT = 1


class PersistError(ValueError):
    """Bytes that are not a persisted session of a format this engine reads."""


@dataclass(frozen=True)
class PendingTimer:
    """A timer that was set and had not fired: deliver `msg` at `due_ms` (epoch ms)."""

    key: str
    due_ms: int
    msg: Msg


def session_to_bytes(session: Session, timers: Iterable[PendingTimer] = ()) -> bytes:
    data: dict[str, Any] = {
        "format": FORMAT,
        "id": session.id,
        "model": model_to_data(session.model),
        "version": session.version,
        "out_seq": session.out_seq,
        "in_seq": session.in_seq,
        "acked": session.acked,
        "intents": [[iid, status] for iid, status in session.intents.items()],
        "tokens": float(session.tokens),
        "tokens_at": session.tokens_at,
        "effects": dict(session.effects),
        "host_sent": session.host_sent,
        "theme_sent": session.theme_sent,
        "acted": session.acted,
        "token_gen": session.token_gen,
        "token_prev_until": session.token_prev_until,
        "timers": [[t.key, t.due_ms, msg_to_data(t.msg)] for t in timers],
    }
    packed: bytes = msgpack.packb(data, use_bin_type=True)
    return packed


def load_bytes(data: bytes) -> tuple[Session, list[PendingTimer]]:
    """The session and its pending timers; raises PersistError on bytes it cannot read."""
    try:
        raw = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as error:  # msgpack raises several unrelated types
        raise PersistError(f"not msgpack: {type(error).__name__}") from error
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise PersistError("not a persisted session of format 1")
    try:
        model = model_from_data(raw["model"])
        session = Session(str(raw["id"]), model, int(raw["tokens_at"]))
        session.version = int(raw["version"])
        session.out_seq = int(raw["out_seq"])
        session.in_seq = int(raw["in_seq"])
        session.acked = int(raw["acked"])
        session.intents = OrderedDict((str(iid), str(status)) for iid, status in raw["intents"])
        session.tokens = float(raw["tokens"])
        session.effects = {str(k): str(v) for k, v in raw["effects"].items()}
        session.host_sent = dict(raw["host_sent"])
        session.theme_sent = raw["theme_sent"]
        # Absent from sessions saved before these fields existed (their tokens, of an older
        # format, no longer verify, so they are never resumed anyway).
        session.acted = bool(raw.get("acted", True))
        session.token_gen = int(raw.get("token_gen", 0))
        session.token_prev_until = int(raw.get("token_prev_until", 0))
        timers = [
            PendingTimer(str(key), int(due), msg_from_data(msg, session.table.messages)) for key, due, msg in raw["timers"]
        ]
    except PersistError:
        raise
    except Exception as error:
        raise PersistError(f"bad persisted session: {type(error).__name__}: {error}") from error
    return session, timers


def session_from_bytes(data: bytes) -> Session:
    return load_bytes(data)[0]
