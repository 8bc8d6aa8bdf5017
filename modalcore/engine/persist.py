"""A session's persistent state as msgpack bytes (never pickle).

What survives a restart: the model (via `model_to_data`), the sequence counters, the tree
version, the remembered intent ids and their outcomes, the rate-limit bucket, the effects
pending in the browser, what the host and theme frames last said, whether an intent was ever
applied, the resume-token generation, and the timers still due.
The frame ring does not survive: a client that rejoins a restored session gets a snapshot.
"""

from __future__ import annotations

from collections import OrderedDict, deque
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, get_type_hints

import msgpack
from pydantic import TypeAdapter

from ..slices.model import Model, model_from_data
from ..wire.codec import array_header, encode, encode_with, map_header
from ..core.msg import Msg, msg_from_data, msg_to_data
from .session import Session

FORMAT = 2  # 2: the model is its own msgpack bytes (packed slice by slice); 1: inline
READABLE = (1, 2)


class PersistError(ValueError):
    """Bytes that are not a persisted session of a format this engine reads."""


@dataclass(frozen=True)
class PendingTimer:
    """A timer that was set and had not fired: deliver `msg` at `due_ms` (epoch ms)."""

    key: str
    due_ms: int
    msg: Msg


@cache
def _field_adapters() -> tuple[tuple[str, bytes, TypeAdapter[Any]], ...]:
    """(field name, its msgpack bytes, its pydantic adapter) for every field of the model."""
    hints = get_type_hints(Model)
    return tuple((f.name, encode(f.name), TypeAdapter(hints[f.name])) for f in fields(Model))


class ModelPacker:
    """The model's msgpack bytes, re-packing only the slices that changed since the last call.

    The model is immutable and every change replaces the slices it touches, so a slice that is
    the same object as last time has the same bytes: saving costs what changed. The bytes are
    exactly those of `encode(model_to_data(model))` (tests hold it to that).
    One packer per live session (the runner's); a save without one packs everything.
    """

    def __init__(self) -> None:
        self._values: tuple[object, ...] = ()  # the slices packed last time
        self._parts: list[bytes] = []  # map header, then each field's key and value bytes
        # the remembered intents packed last time: their ids, each entry's size, all the bytes
        self._intent_ids: deque[str] = deque()
        self._intent_sizes: deque[int] = deque()
        self._intent_bytes = b""
        self.packed = 0  # slices packed (not reused), for tests and figures

    def pack(self, model: Model) -> bytes:
        adapters = _field_adapters()
        values: tuple[object, ...] = _slices(model)
        parts = self._parts
        if not parts:
            parts = [map_header(len(adapters))]
            for (_, key, adapter), value in zip(adapters, values, strict=True):
                parts.append(key)
                parts.append(encode(adapter.dump_python(value, mode="python")))
            self.packed += len(adapters)
            self._parts = parts
        else:
            for index, same in enumerate(map(operator.is_, values, self._values)):
                if not same:
                    parts[2 + 2 * index] = encode(adapters[index][2].dump_python(values[index], mode="python"))
                    self.packed += 1
        self._values = values
        return b"".join(parts)

    def pack_intents(self, intents: OrderedDict[str, str]) -> bytes:
        """The msgpack of `list(intents.items())`, byte for byte, packing only the entries added
        since the last call (a session remembers up to INTENT_MEMORY intent ids: packing them
        all was most of a save's cost). A session's remembered intents grow at the end (a new
        id; an id's outcome never changes) and shrink at the front (the oldest forgotten), so
        what is kept here is a window over them; anything else packs them all again."""
        keys, sizes = self._intent_ids, self._intent_sizes
        if keys and keys[-1] in intents:
            added: list[str] = []
            for iid in reversed(intents):
                if iid == keys[-1]:
                    break
                added.append(iid)
            parts = [self._intent_bytes]
            for iid in reversed(added):
                entry = encode((iid, intents[iid]))
                parts.append(entry)
                keys.append(iid)
                sizes.append(len(entry))
            cut = 0
            while len(keys) > len(intents):
                keys.popleft()
                cut += sizes.popleft()
            self._intent_bytes = b"".join(parts)[cut:]
            if len(keys) != len(intents) or (keys and keys[0] != next(iter(intents))):
                keys.clear()
        else:
            keys.clear()
        if not keys:
            sizes.clear()
            entries = [encode(entry) for entry in intents.items()]
            keys.extend(intents)
            sizes.extend(len(entry) for entry in entries)
            self._intent_bytes = b"".join(entries)
        return array_header(len(keys)) + self._intent_bytes


@cache
def _slice_getter() -> Callable[[Model], tuple[object, ...]]:
    return operator.attrgetter(*(name for name, _, _ in _field_adapters()))


def _slices(model: Model) -> tuple[object, ...]:
    """Every field of the model, in `_field_adapters` order (one C call)."""
    return _slice_getter()(model)


def session_to_bytes(session: Session, timers: Iterable[PendingTimer] = (),
                     packer: ModelPacker | None = None) -> bytes:
    """The persisted bytes; with a `packer` (one per live session) the model's unchanged slices
    are not serialised again."""
    packer = packer if packer is not None else ModelPacker()
    data: dict[str, Any] = {
        "format": FORMAT,
        "id": session.id,
        "model": packer.pack(session.model),  # msgpack inside: unchanged slices are reused
        "version": session.version,
        "out_seq": session.out_seq,
        "in_seq": session.in_seq,
        "acked": session.acked,
        "tokens": float(session.tokens),
        "tokens_at": session.tokens_at,
        "effects": dict(session.effects),
        "host_sent": session.host_sent,
        "theme_sent": session.theme_sent,
        "acted": session.acted,
        "token_gen": session.token_gen,
        "token_prev_until": session.token_prev_until,
        "timers": [[t.key, t.due_ms, msg_to_data(t.msg)] for t in timers],
        "intents": None,  # packed by the packer: only the ids remembered since its last save
    }
    return encode_with(data, {"intents": packer.pack_intents(session.intents)})


def load_bytes(data: bytes) -> tuple[Session, list[PendingTimer]]:
    """The session and its pending timers; raises PersistError on bytes it cannot read."""
    try:
        raw = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as error:  # msgpack raises several unrelated types
        raise PersistError(f"not msgpack: {type(error).__name__}") from error
    if not isinstance(raw, dict) or raw.get("format") not in READABLE:
        raise PersistError(f"not a persisted session of format {' or '.join(map(str, READABLE))}")
    try:
        model_data = raw["model"]
        if raw["format"] == 2:  # the model's own msgpack, as bytes
            model_data = msgpack.unpackb(model_data, raw=False, strict_map_key=False)
        model = model_from_data(model_data)
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
