"""Commands: what `update` asks the runtime to do. Results come back as messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import JsonValue

from .msg import Msg

# What a failed call or wallet request was (issue 30), a closed set: a slice routes on it, never
# on the text. timeout: no answer in time; rejected: the service (or the visitor in the wallet)
# said no (no liquidity, no such name, EIP-1193 4001); upstream: a chain RPC, an API or the
# wallet failed; invalid: the request (or the result) breaks its rules; not_sent: the engine
# never sent it (its session could not be saved first); unknown: anything else (a service bug).
FailureKind = Literal["timeout", "rejected", "upstream", "invalid", "not_sent", "unknown"]


@dataclass(frozen=True)
class EffectReply(Msg):
    """An effect's answer as `update` sees it: the `EffectReply` subclass the effect named, for
    `key` (what it was for). A browser's and a wallet's answers are untrusted input: `result` is
    a JSON value (validated as one at the engine's edge, `engine/replies.py`) that the handler
    checks further (an address list, a chain id, a transaction hash). `ok=False` carries the
    EIP-1193 error (`error_code`, `error_message`, shown, never routed on) and its `failure`,
    decoded once at the edge (`engine/replies.effect_failure`): a handler routes on that."""

    eid: str = ""
    key: str = ""
    ok: bool = True
    result: JsonValue = None
    error_code: int = 0
    error_message: str = ""
    failure: FailureKind | None = None  # with ok=False


@dataclass(frozen=True)
class Effect:
    """Ask the browser to do something (PROTOCOL.md, effect kinds). Its answer comes back as
    `reply` for `key`; on the way it travels as the envelope `EffectSettled` whose purpose is
    `"<reply name>|<key>"` (what the session keeps per effect id and a recording stores)."""

    eid: str
    kind: str
    req: dict[str, Any]
    reply: type[EffectReply]
    key: str = ""
    timeout_ms: int = 10_000

    @property
    def purpose(self) -> str:
        return f"{self.reply.__name__}|{self.key}"


# Effect kinds the engine's runtime runs itself instead of the browser: a request on the
# visitor's WalletConnect session goes over the engine's relay connection (runtime/walletconnect.py).
# Its answer comes back as the `EffectSettled` of that effect id, like a browser's.
RUNTIME_EFFECT_KINDS = frozenset({"walletconnect"})


@dataclass(frozen=True)
class CancelEffect:
    eid: str


@dataclass(frozen=True)
class Reply(Msg):
    """A call's result as `update` sees it, typed. A slice subclasses it per call and narrows
    `result` to a pydantic model (`result: Balances | None = None`); the engine's edge
    (`engine/replies.py`) validates the raw result into it, so a handler never reads a raw dict.
    `ok=False` (with `error`) is the failure: the service failed or its result did not validate.
    `key` says what the call was for (the account, the page, the token) and `context` carries
    what the slice asked to get back (strings)."""

    key: str = ""
    ok: bool = True
    result: object = None
    error: str = ""
    context: dict[str, str] = field(default_factory=dict)
    failure: FailureKind | None = None  # with ok=False: what kind of failure `error` tells


@dataclass(frozen=True)
class Call:
    """Call a named engine service with keyword args. Its result comes back as `reply`
    (a `Reply` subclass) for `key`; on the way it travels as the raw envelope `CallSettled`
    whose purpose is `"<reply name>|<key>"` (what a recording stores)."""

    service: str
    args: dict[str, Any]  # the service's keyword arguments (services take `**args`)
    reply: type[Reply]
    key: str = ""
    context: dict[str, str] = field(default_factory=dict)

    @property
    def purpose(self) -> str:
        return f"{self.reply.__name__}|{self.key}"


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
    """Feed `msg` to update at once, before the tree is drawn (a press a slice makes on the
    visitor's behalf, an answer the engine gives as a wallet)."""

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
    # the engine's own timer for the effect expired (the session made this message); an answer
    # from a browser, a wallet or the runtime is never one, whatever its text says (issue 30)
    timed_out: bool = False
    # set by the engine only, for a request it refused itself (`not_sent`); a browser's answer
    # carries its EIP-1193 error, which the edge decodes into the reply's failure
    failure: FailureKind | None = None


@dataclass(frozen=True)
class CallSettled(Msg):
    purpose: str
    ok: bool
    result: Any = None
    error: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    failure: FailureKind | None = None  # with ok=False (None in recordings made before issue 30: unknown)
