"""Server → client frames (PROTOCOL.md, "Server → client"): one typed definition per kind.

Frames are built as these classes, turned into wire maps in one place (`wire`) and into msgpack
in one place (`encoded`, which keeps the bytes on the frame: a numbered frame is encoded once,
and the resend ring holds those very bytes). A wire map becomes a typed frame again in
`server_frame` (a resume's replay, the tests). The renderer's frame types
(`renderer/src/frames.gen.ts`) are generated from these classes: `python -m modalcore.wire.registry`.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress, repeat
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union, get_args

from .codec import encode, encode_with


@dataclass(frozen=True)
class TS:
    """The TypeScript type of a field whose Python type says less (the generator reads it)."""

    type: str
    check: str  # the kind the renderer checks at the socket edge (codec.ts `fits`)


JsonMap = Annotated[dict[str, Any], TS("Record<string, unknown>", "map")]
WireTree = Annotated[dict[str, Any], TS("WireNode", "node")]
WireOps = Annotated[list[Any], TS("unknown[]", "list")]
AckStatus = Literal["ok", "stale", "invalid", "rate_limited"]
ACK_STATUSES: tuple[AckStatus, ...] = get_args(AckStatus)
# The effect kinds the page runs (PROTOCOL.md, "Effect kinds"). The renderer routes an `effect`
# frame by `effect:<kind>` in the same table as every other frame (transport.ts, `routes`): its
# socket edge refuses any other kind, so that table is total.
EffectKind = Literal["eip1193", "solana", "clipboard", "open_url", "discover"]
EFFECT_KINDS: tuple[EffectKind, ...] = get_args(EffectKind)


def ack_status(value: object) -> AckStatus:
    """An intent's remembered outcome read back (a saved session): one of `AckStatus`."""
    for status in ACK_STATUSES:
        if value == status:
            return status
    raise ValueError(f"not an intent_ack status: {value!r}")


def effect_kind(value: str) -> EffectKind:
    """The kind of an effect sent to the page: one of `EffectKind` (any other is a bug)."""
    for kind in EFFECT_KINDS:
        if value == kind:
            return kind
    raise ValueError(f"not an effect kind the page runs: {value!r}")


@dataclass(frozen=True, slots=True)
class _ServerFrame:
    """The envelope (PROTOCOL.md, "Frame envelope"): `s` numbers the frame (0: not numbered),
    `a` acknowledges the client's frames. `_data` holds the frame's bytes once encoded."""

    t: ClassVar[str]
    s: int
    a: int
    _data: bytes | None = dataclasses.field(default=None, init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Joined(_ServerFrame):
    t: ClassVar[str] = "joined"
    session: str
    resume: str
    resumed: bool


@dataclass(frozen=True, slots=True)
class Snapshot(_ServerFrame):
    """`snapshot`: the whole tree. One made by `drawn_snapshot` holds a way to draw its wire tree
    instead of the tree, drawn on first read: the socket is sent its bytes, packed from the
    session's nodes, and nothing on the production path reads the wire tree (building it was
    about a tenth of an All Wallets press)."""

    t: ClassVar[str] = "snapshot"
    v: int
    tree: WireTree
    _draw: Callable[[], WireTree] | None = dataclasses.field(default=None, init=False, repr=False,
                                                                    compare=False)

    if not TYPE_CHECKING:  # typed as the plain attribute `tree` (mypy would take any name)
        def __getattr__(self, name: str) -> object:
            # reached only for a slot never set: the tree of a `drawn_snapshot`, drawn once
            draw = object.__getattribute__(self, "_draw")
            if name != "tree" or draw is None:
                raise AttributeError(name)
            tree = draw()
            object.__setattr__(self, "tree", tree)
            return tree


def drawn_snapshot(s: int, a: int, v: int, draw: Callable[[], WireTree]) -> Snapshot:
    """`Snapshot(s, a, v, draw())`, with `draw()` called when the tree is first read (`wire`,
    equality, a test), never when only the frame's bytes are (made from `known` by `encoded`).
    `draw` must return the same tree whenever it is called (a node's `to_wire`: nodes are
    immutable)."""
    frame = object.__new__(Snapshot)
    for name, value in (("s", s), ("a", a), ("v", v), ("_data", None), ("_draw", draw)):
        object.__setattr__(frame, name, value)
    return frame


@dataclass(frozen=True, slots=True)
class Patch(_ServerFrame):
    t: ClassVar[str] = "patch"
    base: int
    v: int
    ops: WireOps


@dataclass(frozen=True, slots=True)
class EffectRequest(_ServerFrame):
    """`effect`: something only the browser can do."""

    t: ClassVar[str] = "effect"
    eid: str
    kind: EffectKind
    timeout: int
    req: JsonMap


@dataclass(frozen=True, slots=True)
class EffectCancel(_ServerFrame):
    t: ClassVar[str] = "effect_cancel"
    eid: str


@dataclass(frozen=True, slots=True)
class IntentAck(_ServerFrame):
    t: ClassVar[str] = "intent_ack"
    iid: str
    status: AckStatus
    error: str | None = None


@dataclass(frozen=True, slots=True)
class HostEvent(_ServerFrame):
    t: ClassVar[str] = "host_event"
    kind: str
    data: JsonMap


@dataclass(frozen=True, slots=True)
class Theme(_ServerFrame):
    t: ClassVar[str] = "theme"
    mode: str
    vars: JsonMap


@dataclass(frozen=True, slots=True)
class ErrorFrame(_ServerFrame):
    """`error`: a frame was refused (built by `error_frame`)."""

    t: ClassVar[str] = "error"
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Goodbye(_ServerFrame):
    t: ClassVar[str] = "goodbye"
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Ack(_ServerFrame):
    """A bare acknowledgement: nothing else to send for a while after receiving."""

    t: ClassVar[str] = "ack"


ServerFrame = Union[Joined, Snapshot, Patch, EffectRequest, EffectCancel, IntentAck, HostEvent, Theme,
                    ErrorFrame, Goodbye, Ack]
SERVER_FRAMES: tuple[type[_ServerFrame], ...] = (Joined, Snapshot, Patch, EffectRequest, EffectCancel, IntentAck,
                                                 HostEvent, Theme, ErrorFrame, Goodbye, Ack)
BY_TYPE: dict[str, type[_ServerFrame]] = {cls.t: cls for cls in SERVER_FRAMES}


def _wire_fields(cls: type[_ServerFrame]) -> tuple[str, ...]:
    """The fields after the envelope, in PROTOCOL.md's order (the class's)."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.init and f.name not in ("s", "a"))


FIELDS: dict[type[_ServerFrame], tuple[str, ...]] = {cls: _wire_fields(cls) for cls in SERVER_FRAMES}


def error_frame(code: str, message: str, acked: int = 0) -> ErrorFrame:
    """The `error` frame refusing a client frame: not numbered, never kept for a resume."""
    return ErrorFrame(0, acked, code, message)


# per frame class: the envelope's numbers and its fields, in wire order, and one getter of all
# their values (read in C)
_KEYS: dict[type[_ServerFrame], tuple[str, ...]] = {cls: ("s", "a", *FIELDS[cls]) for cls in SERVER_FRAMES}
_VALUES: dict[type[_ServerFrame], Callable[[object], tuple[object, ...]]] = {
    cls: operator.attrgetter(*keys) for cls, keys in _KEYS.items()}


def wire(frame: ServerFrame) -> dict[str, Any]:
    """The frame as the map on the wire: envelope first, fields in protocol order, optional
    fields omitted when absent."""
    cls = type(frame)
    value: dict[str, object] = {"t": frame.t}
    value.update(zip(_KEYS[cls], _VALUES[cls](frame)))
    if None in value.values():  # an optional field absent: left out (the others kept in C)
        return _present(value)
    return value


def _present(value: dict[str, object]) -> dict[str, object]:
    """`value` less its entries whose value is None."""
    return dict(compress(value.items(), map(operator.is_not, value.values(), repeat(None))))


def encoded(frame: ServerFrame, known: dict[str, bytes] | None = None) -> bytes:
    """The frame's msgpack bytes, made once and kept on the frame (`known`: field -> bytes of
    field values already packed, e.g. a patch's ops measured while choosing it)."""
    data = frame._data
    if data is None:
        data = encode_with(_wire_less(frame, known), known) if known else encode(wire(frame))
        object.__setattr__(frame, "_data", data)
    return data


def _wire_less(frame: ServerFrame, known: dict[str, bytes]) -> dict[str, object]:
    """`wire(frame)` less the value of its last field when `known` holds that field's bytes
    (they stand in for it: `encode_with` packs only the others), so that a field whose bytes
    are known is not read (a drawn snapshot's tree is not drawn)."""
    cls = type(frame)
    keys = _KEYS[cls]
    head = _HEAD_VALUES.get(cls)
    if head is None or len(known) != 1 or keys[-1] not in known:
        return wire(frame)
    value: dict[str, object] = {"t": frame.t}
    value.update(zip(keys, head(frame)))
    if None in value.values():  # an optional field absent: left out, as `wire` does
        value = _present(value)
    value[keys[-1]] = known[keys[-1]]
    return value


# per frame class of at least one field: one getter of the wire values but the last
_HEAD_VALUES: dict[type[_ServerFrame], Callable[[object], tuple[object, ...]]] = {
    cls: operator.attrgetter(*keys[:-1]) for cls, keys in _KEYS.items() if len(keys) >= 3}


def with_bytes(frame: ServerFrame, data: bytes) -> None:
    """Let the frame carry `data` (its own encoding, e.g. a copy shared by many sessions)."""
    object.__setattr__(frame, "_data", data)


class NotAServerFrame(ValueError):
    """A map that is not one of the server frames."""


def server_frame(value: object, data: bytes | None = None) -> ServerFrame:
    """The typed frame of a wire map (`data`: its bytes, when known)."""
    if not isinstance(value, dict):
        raise NotAServerFrame("a frame is a map")
    cls = BY_TYPE.get(value.get("t"))  # type: ignore[arg-type]
    if cls is None:
        raise NotAServerFrame(f"unknown frame type {value.get('t')!r}")
    names = FIELDS[cls]
    extra = set(value) - {"t", "s", "a", *names}
    if extra:
        raise NotAServerFrame(f"{cls.t}: unknown fields {sorted(extra)}")
    try:
        frame: ServerFrame = cls(value["s"], value["a"], **{n: value[n] for n in names if n in value})  # type: ignore[assignment]
    except (KeyError, TypeError) as error:
        raise NotAServerFrame(f"{cls.t}: {error}") from None
    if data is not None:
        with_bytes(frame, data)
    return frame
