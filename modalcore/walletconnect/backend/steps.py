"""The pieces every pure step of the sign protocol shares (core.py, auth_answer.py): the step's
result, the builder that collects it, and the state updates they all make."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..domain import errors
from ..domain.errors import WalletConnectError
from .events import Dropped, Event, Outgoing
from .state import DappState, PendingRequest, SessionState
from .tags import irn

SESSION_EXPIRY = 7 * 86400  # seconds (SDK SESSION_EXPIRY)


@dataclass(frozen=True)
class Step:
    state: DappState
    outgoing: tuple[Outgoing, ...] = ()
    subscribe: tuple[str, ...] = ()
    unsubscribe: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()


@dataclass
class Builder:
    state: DappState
    outgoing: list[Outgoing] = field(default_factory=list)
    subscribe: list[str] = field(default_factory=list)
    unsubscribe: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def step(self) -> Step:
        return Step(self.state, tuple(self.outgoing), tuple(self.subscribe), tuple(self.unsubscribe),
                    tuple(self.events))

    def send(self, topic: str, sym_key: str, payload: str, method: str, direction: Any,
             ttl: int | None = None) -> None:
        opts = irn(method, direction)
        self.outgoing.append(Outgoing(topic, payload, sym_key, opts.tag, ttl if ttl is not None else opts.ttl))

    def drop(self, topic: str, reason: str) -> Step:
        self.events.append(Dropped(topic, reason))
        return self.step()


def changed(state: DappState, **changes: object) -> DappState:
    return state.model_copy(update=changes)


def without(mapping: dict[Any, Any], key: object) -> dict[Any, object]:
    return {k: v for k, v in mapping.items() if k != key}


def settled_session(state: DappState, topic: str) -> SessionState:
    session = state.sessions.get(topic)
    if session is None or not session.settled:
        raise WalletConnectError(errors.NO_SESSION_FOR_TOPIC, "No session for this topic")
    return session


def track(state: DappState, request_id: int, topic: str, method: str, expiry: int) -> DappState:
    pending = PendingRequest(id=request_id, topic=topic, method=method, expiry=expiry)
    return changed(state, requests={**state.requests, request_id: pending})


def forget_session(state: DappState, topic: str) -> DappState:
    return changed(state, sessions=without(state.sessions, topic),
                   requests={k: r for k, r in state.requests.items() if r.topic != topic})
