"""Commands: what `update` asks the runtime to do. Results come back as messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .msg import Msg


@dataclass(frozen=True)
class Effect:
    """Ask the browser to do something (PROTOCOL.md, effect kinds). Settles as EffectSettled."""

    eid: str
    kind: str
    req: dict[str, Any]
    purpose: str
    timeout_ms: int = 10_000


@dataclass(frozen=True)
class CancelEffect:
    eid: str


@dataclass(frozen=True)
class Call:
    """Call a named engine service with keyword args. Settles as CallSettled(purpose, ...)."""

    service: str
    args: dict[str, Any]
    purpose: str
    context: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StartTimer:
    """Deliver `msg` after `delay_ms`; a timer with the same key is replaced."""

    key: str
    delay_ms: int
    msg: Msg


@dataclass(frozen=True)
class CancelTimer:
    key: str


@dataclass(frozen=True)
class Track:
    """An analytics / tracking event (SPEC §8, tracking events)."""

    event: str
    props: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Dispatch:
    """Feed `msg` to update at once, before the tree is drawn (callbacks of the tx stack)."""

    msg: Msg


Cmd = Effect | CancelEffect | Call | StartTimer | CancelTimer | Track | Dispatch


@dataclass(frozen=True)
class EffectSettled(Msg):
    eid: str
    purpose: str
    ok: bool
    result: Any = None
    error_code: int = 0
    error_message: str = ""


@dataclass(frozen=True)
class CallSettled(Msg):
    purpose: str
    ok: bool
    result: Any = None
    error: str = ""
    context: dict[str, Any] = field(default_factory=dict)
