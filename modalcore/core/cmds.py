"""Commands: what `update` asks the runtime to do. Results come back as messages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, JsonValue, ValidationError

from .msg import Msg

# What a failed call or wallet request was (issue 30), a closed set: a slice routes on it, never
# on the text. timeout: no answer in time; rejected: the service (or the visitor in the wallet)
# said no (no liquidity, no such name, EIP-1193 4001); upstream: a chain RPC, an API or the
# wallet failed; invalid: the request (or the result) breaks its rules; not_sent: the engine
# never sent it (its session could not be saved first); unknown: anything else (a service bug).
FailureKind = Literal["timeout", "rejected", "upstream", "invalid", "not_sent", "unknown"]


@dataclass(frozen=True)
class Failure:
    """Why a call or an effect failed: its `kind` (what a slice routes on) and the service's or
    wallet's `message` (what a slice may show; never routed on)."""

    kind: FailureKind
    message: str = ""


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
    failure: Failure | None = None  # with ok=False


@dataclass(frozen=True)
class EffectTo:
    """Where an effect's answer goes, as a typed reference: the `EffectReply` subclass it becomes
    and the key it is for (what the session keeps per pending effect id). Only a recording or a
    saved session writes it as a name (`engine/named.py`)."""

    reply: type[EffectReply]
    key: str = ""


@dataclass(frozen=True)
class Effect:
    """Ask the browser to do something (PROTOCOL.md, effect kinds). Its answer comes back as
    `reply` for `key`; on the way it travels as the envelope `EffectSettled` addressed `to` it."""

    eid: str
    kind: str
    req: dict[str, Any]
    reply: type[EffectReply]
    key: str = ""
    timeout_ms: int = 10_000

    @property
    def to(self) -> EffectTo:
        return EffectTo(self.reply, self.key)


# Effect kinds the engine's runtime runs itself instead of the browser: a request on the
# visitor's WalletConnect session goes over the engine's relay connection (runtime/walletconnect.py).
# Its answer comes back as the `EffectSettled` of that effect id, like a browser's.
RUNTIME_EFFECT_KINDS = frozenset({"walletconnect"})


@dataclass(frozen=True)
class CancelEffect:
    eid: str


@dataclass(frozen=True)
class Reply(Msg):
    """A call's result as `update` sees it, typed: a `result` or a `failure`. A slice subclasses
    it per call and narrows `result` to a pydantic model (`result: Balances | None = None`); the
    engine's edge (`engine/replies.py`) validates the raw result into it, so a handler never
    reads a raw dict. A `Failure` says the service failed or its result did not validate. `key`
    says what the call was for (the account, the page, the token) and `context` carries what the
    slice asked to get back (strings)."""

    key: str = ""
    result: object = None
    failure: Failure | None = None
    context: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def error(self) -> str:
        """The failure's message, to show ("" when none); a slice routes on `failure.kind`."""
        return self.failure.message if self.failure is not None else ""


A = TypeVar("A", bound=BaseModel)
INVALID_ARGUMENTS = "invalid arguments"  # the failure's message when a call's arguments break its rules
R = TypeVar("R")


@dataclass(frozen=True)
class ServiceRef(Generic[A, R]):
    """The typed handle a `Call` names a service by: its arguments' pydantic model (`args`) and
    what it answers (`result`, a TypedDict or a JSON type). The runtime registers the service's
    implementation under it (`runtime/services.ServiceRegistry.register`, which holds the
    implementation to the same arguments' model). `name` is how logs and the registry's listing
    say it; two handles are the same service when their names are (a test may register its own
    implementation of a known service)."""

    name: str
    args: type[A] = field(compare=False)
    result: Any = field(default=object, compare=False)

    def call(self, args: A, reply: type[Reply], key: str = "", context: dict[str, str] | None = None) -> Call[A]:
        """The `Call` of this service with `args` (mypy holds them to this handle's model, which
        a bare `Call(...)` inside a list of commands would not)."""
        return Call(self, args, reply, key, dict(context or {}))

    def call_or_refusal(
        self, raw: Mapping[str, object], reply: type[Reply], key: str = "", context: dict[str, str] | None = None,
    ) -> Call[A] | Dispatch:
        """The call with `raw` (arguments made from the visitor's input) validated into this
        handle's model or, when they break its rules, the refusal the runtime used to give:
        `reply` failed as "invalid", fed at once (no exception reaches `update`)."""
        try:
            args = self.args.model_validate(raw)
        except ValidationError:
            return Dispatch(reply(key=key, failure=Failure("invalid", INVALID_ARGUMENTS), context=dict(context or {})))
        return self.call(args, reply, key, context)


@dataclass(frozen=True)
class ReplyTo:
    """Where a call's result goes, as a typed reference: the `Reply` subclass it becomes and
    the key it is for. Only a recording or a saved session writes it as a name
    (`engine/named.py`)."""

    reply: type[Reply]
    key: str = ""


@dataclass(frozen=True)
class Call(Generic[A]):
    """Call the engine service `service` (a typed handle `ServiceRef[A, R]`) with `args`, an
    instance of the handle's arguments' model (mypy holds the two together). Its result comes
    back as `reply` (a `Reply` subclass) for `key`; on the way it travels as the raw envelope
    `CallSettled` addressed `to` it. Build one with `ServiceRef.call`; arguments made from the
    visitor's input are validated where they are made (`ServiceRef.call_or_refusal`), so the
    runtime runs what it is given."""

    service: ServiceRef[A, Any]
    args: A
    reply: type[Reply]
    key: str = ""
    context: dict[str, str] = field(default_factory=dict)

    @property
    def to(self) -> ReplyTo:
        return ReplyTo(self.reply, self.key)

    @property
    def args_data(self) -> dict[str, Any]:
        """The arguments as plain JSON data, the fields the call set (what a log, a recording or
        a test reads; validating it into the handle's model gives `args` back)."""
        return self.args.model_dump(mode="json", exclude_unset=True)


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
    """An analytics / tracking event (behaviour.md §8, tracking events)."""

    event: str
    props: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Dispatch:
    """Feed `msg` to update at once, before the tree is drawn (a press a slice makes on the
    visitor's behalf, an answer the engine gives as a wallet)."""

    msg: Msg


Cmd = Effect | CancelEffect | Call[Any] | StartTimer | CancelTimer | Track | Dispatch


@dataclass(frozen=True)
class EffectSettled(Msg):
    """An effect's raw answer (from the browser, the runtime, or the engine's own timer),
    addressed `to` the reply it becomes at the session's edge (`engine/replies.py`)."""

    eid: str
    to: EffectTo
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
class WalletAnswered(Msg):
    """The engine's answer, as the embedded wallet, to the effect `eid` it holds (a `Dispatch`
    of flows/wallet_answer.py): the session addresses it to the reply that effect awaits, as it
    does a browser's `effect_result`."""

    eid: str
    ok: bool
    result: Any = None
    error_code: int = 0
    error_message: str = ""


@dataclass(frozen=True)
class CallSettled(Msg):
    """A call's raw result (JSON-able, what a recording stores) addressed `to` the reply it
    becomes at the session's edge (`engine/replies.py`)."""

    to: ReplyTo
    ok: bool
    result: Any = None
    error: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    failure: FailureKind | None = None  # with ok=False (None in recordings made before issue 30: unknown)
