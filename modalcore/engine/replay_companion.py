"""Replaying the linked phone's part of a recording (engine/record.py; engine/companion.py).

A recorded `companion` event joins a `Companion` to the replayed session (its public key as
recorded), an `in` event `"by": "companion"` is its frame, `companion_left` ends it; after every
input the companion is sent what the runner sends it (`mirror`, or the `not_linked` error when
the step unlinked it). Its frames are compared as `{"to": "companion", "frame": ...}`, so a
frame sent to the wrong screen is a divergence too.
"""

from __future__ import annotations

from collections.abc import Mapping
from weakref import WeakKeyDictionary

from ..wire.frames import ClientFrame
from ..wire.serverframes import ServerFrame, error_frame, wire
from .companion import NOT_LINKED, Companion
from .session import Session

COMPANION = "companion"
# per replayed session: its companion, None once it left (absent: none ever joined)
_companions: WeakKeyDictionary[Session, Companion | None] = WeakKeyDictionary()


def to_companion(frame: object) -> dict[str, object]:
    """A frame sent to the companion, as a replay compares it."""
    return {"to": COMPANION, "frame": frame}


def is_companion_frame(frame: object) -> bool:
    return isinstance(frame, dict) and frame.get("to") == COMPANION and set(frame) == {"to", "frame"}


def companion_event(event: Mapping[str, object]) -> bool:
    """The input is the companion's (its join, its frame, its leaving)."""
    return event["k"] in ("companion", "companion_left") or (event["k"] == "in" and event.get("by") == COMPANION)


def feed_companion(session: Session, event: Mapping[str, object], frame: ClientFrame | None) -> list[dict[str, object]]:
    """Give the companion's recorded input to `session`; the frames sent (the host's, and the
    companion's marked by `to_companion`). `frame`: the `in` event's frame, validated."""
    kind = event["k"]
    if kind == "companion":
        companion = Companion(session, _now(event), str(event["public_key"]))
        _companions[session] = companion
        return [to_companion(wire(f)) for f in companion.welcome()]
    if kind == "companion_left":
        _companions[session] = None
        return []
    if session not in _companions or frame is None:
        raise ValueError("a companion's frame before it joined")
    joined = _companions[session]
    if joined is None:
        return []  # today's engine unlinked the phone earlier: what it was sent is missing (a divergence)
    mine, out = joined.receive(frame, _now(event))
    frames: list[dict[str, object]] = [wire(f) for f in out.frames]
    if joined.linked:
        frames.extend(to_companion(wire(f)) for f in mine)
    return frames + mirrored(session, out.frames)


def _now(event: Mapping[str, object]) -> int:
    now = event["now"]
    if not isinstance(now, int):
        raise ValueError("a companion event's `now` is not a number")
    return now


def mirrored(session: Session, host_frames: list[ServerFrame]) -> list[dict[str, object]]:
    """What the runner sends the companion after a step whose frames to the host were `host_frames`."""
    companion = _companions.get(session)
    if companion is None:
        return []
    if not companion.linked:
        _companions[session] = None
        return [to_companion(wire(error_frame("not_linked", NOT_LINKED)))]
    return [to_companion(wire(f)) for f in companion.mirror(host_frames)]
