"""A session's persistent state as msgpack bytes (never pickle).

What survives a restart: the model (via `model_to_data`; the effects waiting on an answer are
in it, each by its reply's name, engine/pending.py), the sequence counters, the tree version,
the remembered intent ids and their outcomes, the rate-limit bucket, what the host and theme
frames last said, whether an intent was ever applied, the resume-token generation, and the
timers still due. A session saved before the model held its pending effects kept them beside it
(`effects`, `held`): they move into the model when it is loaded.
The frame ring does not survive: a client that rejoins a restored session gets a snapshot.

A live session's saves (`session_to_save`, format 3) refer to the wallet directory's lists by
content hash instead of holding them (`shared.py`): the store keeps each list once for every
session, and a save carries only the session's own data; a slice equal to its default is nil
(issue 17: a save went from ~13.4 KB to ~2.7 KB after All Wallets). `session_to_bytes` gives
self-contained bytes (format 2) for tools and tests.
"""

from __future__ import annotations

from collections import OrderedDict, deque
import operator
from collections.abc import Callable, Iterable
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields, is_dataclass
from functools import cache
from itertools import compress
import logging
from typing import Any, get_type_hints

import msgpack
from pydantic import TypeAdapter

from ..slices.model import Model, model_from_data
from ..wire.codec import array_header, encode, map_entries, map_header
from ..wire.serverframes import AckStatus, ack_status
from ..core.msg import Msg
from . import pending
from .flatpack import flat_getters
from .named import from_data, to_data
from .session import Session
from .shared import SHARED, SharedPacker, resolver, restore

FORMAT = 2  # 2: the model is its own msgpack bytes (packed slice by slice); 1: inline
SHARED_FORMAT = 3  # 3: as 2, the directory's lists referred to by hash ("blobs"), default slices nil
READABLE = (1, 2, 3)

log = logging.getLogger(__name__)
_NIL = encode(None)
_HOST_SENT, _THEME_SENT, _INTENTS = encode("host_sent"), encode("theme_sent"), encode("intents")
_INDICES = range(len(fields(Model)))


class PersistError(ValueError):
    """Bytes that are not a persisted session of a format this engine reads."""


class BlobsNeeded(PersistError):
    """The bytes refer to shared blobs and none were given: load them from the store
    (`blob_refs`, `SessionStore.load_blobs`) and pass them to `load_bytes`."""

    def __init__(self, digests: list[str]) -> None:
        super().__init__(f"the session refers to {len(digests)} shared blobs; none were given")
        self.digests = digests


@dataclass(frozen=True)
class Saved:
    """What a save writes: the session's bytes, and the shared blobs they refer to (digest ->
    bytes; the store writes those it does not have yet)."""

    data: bytes
    blobs: Mapping[str, bytes]


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


@cache
def _default_bytes() -> tuple[bytes | None, ...]:
    """For every field of the model, the msgpack of its default value when it is a slice (a
    shared default instance or a default factory), else None: a format-3 save writes nil for a
    slice equal to it."""
    adapters = _field_adapters()
    out: list[bytes | None] = []
    for (_, _, adapter), f in zip(adapters, fields(Model), strict=True):
        factory = f.default_factory
        made = factory is not MISSING
        default = factory() if factory is not MISSING else f.default
        out.append(encode(adapter.dump_python(default, mode="python"))
                   if made or is_dataclass(default) else None)
    return tuple(out)


def _dumped(index: int, value: object) -> bytes:
    """The msgpack of the model field `index`'s pydantic dump (python mode); a slice of plain
    fields without pydantic (flatpack.py), byte for byte the same."""
    flat = flat_getters()[index]
    if flat is not None and type(value) is flat[1]:
        return encode(dict(zip(flat[0], flat[2](value))))
    return encode(_field_adapters()[index][2].dump_python(value, mode="python"))


@cache
def _defaulted() -> frozenset[str]:
    return frozenset(name for (name, _, _), packed in zip(_field_adapters(), _default_bytes(), strict=True)
                     if packed is not None)


class ModelPacker:
    """The model's msgpack bytes, re-packing only the slices that changed since the last call.

    The model is immutable and every change replaces the slices it touches, so a slice that is
    the same object as last time has the same bytes: saving costs what changed. The bytes are
    exactly those of `encode(model_to_data(model))` (tests hold it to that).
    One packer per live session (the runner's); a save without one packs everything.
    """

    def __init__(self, shared: bool = False) -> None:
        """`shared` (format 3): the directory's lists are packed as references (`blobs` then
        holds what the last packed model refers to), and a slice equal to its default as nil."""
        self._shared = SharedPacker() if shared else None
        self._blobs_of: dict[int, dict[str, bytes]] = {}  # field index -> the blobs it refers to
        self.blobs: Mapping[str, bytes] = {}
        self._values: tuple[object, ...] = ()  # the slices packed last time
        self._parts: list[bytes] = []  # map header, then each field's key and value bytes
        # the remembered intents packed last time: their ids, each entry's size, all the bytes
        self._intent_ids: deque[str] = deque()
        self._intent_sizes: deque[int] = deque()
        self._intent_bytes = b""
        self.packed = 0  # slices packed (not reused), for tests and figures
        # what the host events and the theme said at the last save, with their bytes (an
        # event's: its map entry, key and value)
        self._host: dict[str, tuple[object, bytes]] = {}
        self._host_values: tuple[object, ...] = ()  # the data of each kind, in `_host`'s order
        self._host_bytes = map_header(0)
        self._theme: tuple[object, bytes] | None = None

    @property
    def shared(self) -> bool:
        """Whether the directory's lists are packed as references (format 3)."""
        return self._shared is not None

    def pack(self, model: Model) -> bytes:
        adapters = _field_adapters()
        values: tuple[object, ...] = _slices(model)
        parts = self._parts
        if not parts:
            parts = [map_header(len(adapters))]
            for index, value in enumerate(values):
                parts.append(adapters[index][1])
                parts.append(self._pack_field(index, value))
            self.packed += len(adapters)
            self._parts = parts
        else:
            # the indices of the slices that are not the same objects, found in C (a Python
            # loop over every field was a tenth of a save's cost when one or two changed)
            for index in compress(_INDICES, map(operator.is_not, values, self._values)):
                parts[2 + 2 * index] = self._pack_field(index, values[index])
                self.packed += 1
        self._values = values
        return b"".join(parts)

    def _pack_field(self, index: int, value: object) -> bytes:
        name = _field_adapters()[index][0]
        if self._shared is None:
            return _dumped(index, value)
        if name not in SHARED:
            packed = _dumped(index, value)
            return _NIL if packed == _default_bytes()[index] else packed
        packed, blobs = self._shared.pack(name, value)
        if blobs != self._blobs_of.get(index):
            self._blobs_of[index] = blobs
            self.blobs = {d: b for refs in self._blobs_of.values() for d, b in refs.items()}
        return packed

    def pack_host(self, sent: Mapping[str, object]) -> bytes:
        """The msgpack of what the host events last said (`Session.host_sent`: kind -> data),
        byte for byte; an event's data is packed again only when it is another object than at
        the last save (the session replaces an event's data when it changes, never edits it),
        and the whole map is reused when every kind and data is the one of the last save."""
        kept = self._host
        if (len(sent) == len(kept) and all(map(operator.is_, sent.values(), self._host_values))
                and all(map(operator.eq, sent, kept))):
            return self._host_bytes
        parts = [map_header(len(sent))]
        now: dict[str, tuple[object, bytes]] = {}
        for kind, data in sent.items():
            hit = kept.get(kind)
            if hit is None or hit[0] is not data:
                hit = (data, encode(kind) + encode(data))  # the entry: its key and value
            now[kind] = hit
            parts.append(hit[1])
        self._host = now
        self._host_values = tuple(sent.values())
        self._host_bytes = b"".join(parts)
        return self._host_bytes

    def pack_theme(self, sent: object) -> bytes:
        """The msgpack of the theme frame's content last sent (`Session.theme_sent`, replaced
        whole when it changes), packed again only when it is another object than last time."""
        if self._theme is None or self._theme[0] is not sent:
            self._theme = (sent, encode(sent))
        return self._theme[1]

    def pack_intents(self, intents: OrderedDict[str, AckStatus]) -> bytes:
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
def _slice_getter() -> tuple[tuple[str, ...], Callable[[Model], tuple[object, ...]]]:
    names = tuple(name for name, _, _ in _field_adapters())
    return names, operator.attrgetter(*names)


def _slices(model: Model) -> tuple[object, ...]:
    """Every field of the model, in `_field_adapters` order: the values of its instance dict
    when that holds exactly the fields in that order (as `__init__` and `core.evolve.replace`
    make it; two C calls, a third of reading each field by name), else read by name."""
    state, (names, getter) = model.__dict__, _slice_getter()
    return tuple(state.values()) if tuple(state) == names else getter(model)


def _session_data(session: Session, timers: Iterable[PendingTimer], packer: ModelPacker,
                  fmt: int) -> bytes:
    head: dict[str, object] = {
        "format": fmt,
        "id": session.id,
        "model": packer.pack(session.model),  # msgpack inside: unchanged slices are reused
        "version": session.version,
        "out_seq": session.out_seq,
        "in_seq": session.in_seq,
        "acked": session.acked,
        "tokens": float(session.tokens),
        "tokens_at": session.tokens_at,
    }
    tail: dict[str, object] = {
        "acted": session.acted,
        "token_gen": session.token_gen,
        "token_prev_until": session.token_prev_until,
        "timers": [[t.key, t.due_ms, to_data(t.msg)] for t in timers],
    }
    if fmt == SHARED_FORMAT:
        tail["blobs"] = list(packer.blobs)
    # what the host and theme frames last said, and the remembered intents, packed by the packer
    # (only what changed since its last save), spliced between the entries of `head` and `tail`
    # (each packed less its own map header, of whatever size): the same bytes as the whole map
    # packed at once (`codec.encode_map`, unrolled)
    return b"".join((map_header(len(head) + len(tail) + 3), map_entries(head),
                     _HOST_SENT, packer.pack_host(session.host_sent),
                     _THEME_SENT, packer.pack_theme(session.theme_sent),
                     map_entries(tail), _INTENTS, packer.pack_intents(session.intents)))


def session_to_bytes(session: Session, timers: Iterable[PendingTimer] = (),
                     packer: ModelPacker | None = None) -> bytes:
    """Self-contained persisted bytes (format 2); with a `packer` (one per live session) the
    model's unchanged slices are not serialised again."""
    packer = packer if packer is not None else ModelPacker()
    if packer.shared:
        raise ValueError("a packer of shared references saves with session_to_save")
    return _session_data(session, timers, packer, FORMAT)


def session_to_save(session: Session, timers: Iterable[PendingTimer], packer: ModelPacker) -> Saved:
    """What a live session's save writes (format 3): its bytes, which refer to the directory's
    lists by hash, and those lists (`packer`: the session's own, made with `shared=True`)."""
    if not packer.shared:
        raise ValueError("session_to_save needs a packer made with shared=True")
    return Saved(_session_data(session, timers, packer, SHARED_FORMAT), packer.blobs)


def _unpack(data: bytes) -> dict[str, Any]:
    try:
        raw = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as error:  # msgpack raises several unrelated types
        raise PersistError(f"not msgpack: {type(error).__name__}") from error
    if not isinstance(raw, dict) or raw.get("format") not in READABLE:
        raise PersistError(f"not a persisted session of format {' or '.join(map(str, READABLE))}")
    return raw


def blob_refs(data: bytes) -> list[str]:
    """The shared blobs (digests) that saved bytes refer to; PersistError on bytes it cannot read."""
    refs = _unpack(data).get("blobs", [])
    if not isinstance(refs, list) or not all(isinstance(ref, str) for ref in refs):
        raise PersistError("bad persisted session: its blobs are not a list of digests")
    return refs


def load_bytes(data: bytes, blobs: Mapping[str, bytes] | None = None) -> tuple[Session, list[PendingTimer]]:
    """The session and its pending timers; raises PersistError on bytes it cannot read.

    `blobs`: the shared blobs the bytes refer to, as the store returned them (BlobsNeeded when
    they refer to some and none are given). A list whose blob is missing is loaded as not
    fetched, and the directory fetches it again."""
    raw = _unpack(data)
    try:
        model_data = raw["model"]
        if raw["format"] == SHARED_FORMAT:
            refs = list(raw["blobs"])
            if refs and blobs is None:
                raise BlobsNeeded(refs)
            model_data = msgpack.unpackb(model_data, raw=False, strict_map_key=False,
                                         ext_hook=resolver(blobs or {}))
            for name in _defaulted().intersection(model_data):
                if model_data[name] is None:  # saved as nil: equal to its default
                    del model_data[name]
            reset = restore(model_data)
            if reset:
                log.info("session %s: shared blobs missing, fetched again: %s", raw["id"], ", ".join(reset))
        elif raw["format"] == 2:  # the model's own msgpack, as bytes
            model_data = msgpack.unpackb(model_data, raw=False, strict_map_key=False)
        # before the model held its pending effects, the session kept them beside it
        model = pending.restored(model_from_data(model_data),
                                 {str(k): str(v) for k, v in raw.get("effects", {}).items()},
                                 {str(k): str(v) for k, v in _held(raw, model_data).items()})
        session = Session(str(raw["id"]), model, int(raw["tokens_at"]))
        session.version = int(raw["version"])
        session.out_seq = int(raw["out_seq"])
        session.in_seq = int(raw["in_seq"])
        session.acked = int(raw["acked"])
        session.intents = OrderedDict((str(iid), ack_status(status)) for iid, status in raw["intents"])
        session.tokens = float(raw["tokens"])
        session.host_sent = dict(raw["host_sent"])
        session.theme_sent = raw["theme_sent"]
        # Absent from sessions saved before these fields existed (their tokens, of an older
        # format, no longer verify, so they are never resumed anyway).
        session.acted = bool(raw.get("acted", True))
        session.token_gen = int(raw.get("token_gen", 0))
        session.token_prev_until = int(raw.get("token_prev_until", 0))
        timers = [
            PendingTimer(str(key), int(due), from_data(msg, session.table.messages)) for key, due, msg in raw["timers"]
        ]
    except PersistError:
        raise
    except Exception as error:
        raise PersistError(f"bad persisted session: {type(error).__name__}: {error}") from error
    return session, timers


def _held(raw: dict[str, Any], model_data: Any) -> dict[str, str]:
    """The embedded wallet's held request (eid -> its reply's name); a session saved before
    `held` was saved named the reply in the model's request."""
    if "held" in raw:
        return dict(raw["held"])
    request = ((model_data or {}).get("embedded") or {}).get("request") or {}
    if "reply" not in request:
        return {}
    return {str(request["eid"]): f"{request['reply']}|{request['key']}"}


def session_from_bytes(data: bytes) -> Session:
    return load_bytes(data)[0]
