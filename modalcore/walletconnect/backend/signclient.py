"""The dApp's sign client: the pure `core` steps driven over a shared `RelayClient`.

One `SignClient` per visitor session (its own `DappState`), all of them on the process's one
relay connection. It supplies what the core may not touch (randomness, the clock, I/O): it
generates keys and ids, seals and publishes outgoing payloads, (un)subscribes topics, and turns
events into awaited results. `state` is plain data; `SignClient(..., state=saved)` +
`restore()` continues the same pairings and sessions.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..domain import errors
from . import core
from ..domain.auth import AUTH_METHOD, AuthPayload
from .crypto import KeyPair, generate_sym_key, seal
from ..domain.errors import ProposalRejected, RequestExpired, RequestRejected, SessionGone, WalletConnectError
from .events import (Dropped, Event, ProposalDeclined, ProposalExpired, RequestTimedOut, ResponseReceived, SessionDeleted,
                     SessionExpired, SessionSettled)
from .relay_client import RelayClient
from ..domain.sign_rpc import Metadata
from .state import DappState, SessionState
from .uri import PAIRING_EXPIRY_MS, PairingUri

log = logging.getLogger(__name__)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    """Fail a waiter that may have been given up (the visitor went on, the pairing was
    replaced): marking the exception read keeps asyncio from logging "Future exception was
    never retrieved ... The proposal expired"; whoever still awaits it gets the exception."""
    future.set_exception(error)
    future.exception()


def payload_id() -> int:
    """A JSON-RPC id as the SDK makes them: epoch ms × 1000 + 3 random digits."""
    return int(time.time() * 1000) * 1000 + secrets.randbelow(1000)


@dataclass(frozen=True)
class Connection:
    """A pairing URI to show, and the session the wallet settles (or a ProposalRejected)."""

    uri: str
    pairing_topic: str
    proposal_id: int
    approval: asyncio.Future[SessionState]


class SignClient:
    def __init__(self, relay: RelayClient, metadata: Metadata, *, state: DappState | None = None,
                 on_event: Callable[[Event], None] | None = None,
                 clock: Callable[[], float] = time.time,
                 on_change: Callable[[DappState], Awaitable[None]] | None = None) -> None:
        self.relay = relay
        self.metadata = metadata
        self.on_event = on_event
        self.on_change = on_change  # persist the state (awaited after each change, before events)
        self.clock = clock
        self._state = state or DappState()
        self._approvals: dict[int, asyncio.Future[SessionState]] = {}
        self._answers: dict[int, asyncio.Future[Any]] = {}
        self._answer_topics: dict[int, str] = {}

    @property
    def state(self) -> DappState:
        return self._state

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    async def restore(self) -> None:
        """Resubscribe every topic of the state (after a restart)."""
        await self._subscribe(self._state.topics())

    async def close(self) -> None:
        for topic in self._state.topics():
            self.relay.off(topic)

    # ---------- dApp actions -----------------------------------------------------------------

    async def connect(self, networks: Sequence[str], required: Sequence[str] = (),
                      pairing_ttl_ms: int = PAIRING_EXPIRY_MS) -> Connection:
        """A fresh pairing and a proposal on it; returns at once with the URI."""
        step, uri = core.create_pairing(self._state, generate_sym_key(), self._now_ms(), pairing_ttl_ms)
        await self._apply(step)
        proposal_id = payload_id()
        approval: asyncio.Future[SessionState] = asyncio.get_running_loop().create_future()
        self._approvals[proposal_id] = approval
        await self._apply(core.propose(self._state, pairing_topic=uri.topic, key_pair=KeyPair.generate(),
                                       proposal_id=proposal_id, networks=networks, metadata=self.metadata,
                                       now_ms=self._now_ms(), required=required))
        return Connection(uri.format(), uri.topic, proposal_id, approval)

    async def authenticate(self, networks: Sequence[str], payload: AuthPayload,
                           pairing_ttl_ms: int = PAIRING_EXPIRY_MS) -> Connection:
        """One-click sign-in (the SDK's `authenticate()`): a pairing with
        `methods=wc_sessionAuthenticate`, the authenticate request and the fallback proposal on it.
        The approval is the session, made from the wallet's CACAOs (`SessionState.cacaos`) or
        settled after the fallback proposal (no CACAOs); a refused answer is a ProposalRejected."""
        step, uri = core.create_pairing(self._state, generate_sym_key(), self._now_ms(), pairing_ttl_ms,
                                        methods=(AUTH_METHOD,))
        await self._apply(step)
        proposal_id = payload_id()
        approval: asyncio.Future[SessionState] = asyncio.get_running_loop().create_future()
        self._approvals[proposal_id] = approval
        request_id = payload_id()
        if request_id == proposal_id:
            request_id += 1
        await self._apply(core.authenticate(self._state, pairing_topic=uri.topic, key_pair=KeyPair.generate(),
                                            request_id=request_id, proposal_id=proposal_id, networks=networks,
                                            metadata=self.metadata, payload=payload, now_ms=self._now_ms()))
        return Connection(uri.format(), uri.topic, proposal_id, approval)

    def pending_connection(self) -> Connection | None:
        """The newest proposal still waiting for a wallet, with an approval to await: what a
        restarted engine (state read back from its store) waits on again. A session the wallet
        settled while nobody waited (delivered by the relay's mailbox on resubscribing) answers
        at once."""
        if not self._state.proposals:
            return None
        proposal = max(self._state.proposals.values(), key=lambda p: p.expiry)
        pairing = self._state.pairings.get(proposal.pairing_topic)
        if pairing is None:
            return None
        approval = self._approvals.get(proposal.id)
        if approval is None:
            approval = self._approvals[proposal.id] = asyncio.get_running_loop().create_future()
        uri = PairingUri(pairing.topic, pairing.sym_key, pairing.expiry, methods=tuple(pairing.methods)).format()
        return Connection(uri, pairing.topic, proposal.id, approval)

    def settled_for(self, proposal_id: int) -> SessionState | None:
        return next((s for s in self._state.sessions.values() if s.proposal_id == proposal_id and s.settled), None)

    async def request(self, topic: str, chain_id: str, method: str, params: object, *,
                      expiry: int | None = None) -> Any:
        """A wc_sessionRequest; returns the wallet's result or raises RequestRejected / RequestExpired."""
        request_id = payload_id()
        answer = self._expect(request_id, topic)
        await self._apply(core.send_request(self._state, topic=topic, request_id=request_id, chain_id=chain_id,
                                            method=method, params=params, now_ms=self._now_ms(), expiry=expiry))
        return await answer

    async def ping(self, topic: str) -> None:
        request_id = payload_id()
        answer = self._expect(request_id, topic)
        await self._apply(core.ping(self._state, topic=topic, request_id=request_id, now_ms=self._now_ms()))
        await answer

    async def extend(self, topic: str) -> int:
        request_id = payload_id()
        answer = self._expect(request_id, topic)
        await self._apply(core.extend(self._state, topic=topic, request_id=request_id, now_ms=self._now_ms()))
        await answer
        return self._state.sessions[topic].expiry

    async def disconnect(self, topic: str) -> None:
        await self._apply(core.delete(self._state, topic=topic, request_id=payload_id()))

    async def drop_unanswered(self) -> None:
        """Forget pairings no wallet answered on (their approvals fail as expired)."""
        await self._apply(core.drop_unanswered(self._state))

    async def expire(self) -> None:
        """Drop whatever has expired (call periodically)."""
        await self._apply(core.expire(self._state, self._now_ms()))

    # ---------- plumbing ---------------------------------------------------------------------

    def _expect(self, request_id: int, topic: str) -> asyncio.Future[Any]:
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._answers[request_id] = future
        self._answer_topics[request_id] = topic
        future.add_done_callback(lambda _: self._answer_topics.pop(request_id, None))
        return future

    async def _on_message(self, topic: str, message: str, published_at: int) -> None:
        await self._apply(core.receive(self._state, topic, message, self._now_ms()))

    async def _subscribe(self, topics: Sequence[str]) -> None:
        for topic in topics:
            self.relay.on(topic, self._on_message)
        if topics:
            await self.relay.subscribe(topics)

    async def _apply(self, step: core.Step) -> None:
        changed = step.state != self._state
        self._state = step.state
        if changed and self.on_change is not None:
            await self.on_change(self._state)
        for event in step.events:
            self._settle(event)
        for out in step.outgoing:
            await self.relay.publish(out.topic, seal(out.payload, out.sym_key), tag=out.tag, ttl=out.ttl)
        if step.unsubscribe:
            await self.relay.unsubscribe(step.unsubscribe)
        await self._subscribe(step.subscribe)
        if self.on_event is not None:
            for event in step.events:
                self.on_event(event)

    def _settle(self, event: Event) -> None:
        if isinstance(event, Dropped):
            log.warning("walletconnect: dropped message on %s: %s", event.topic[:12], event.reason)
        elif isinstance(event, SessionSettled):
            future = self._approvals.pop(event.session.proposal_id, None)
            if future is not None and not future.done():
                future.set_result(event.session)
        elif isinstance(event, ProposalDeclined):
            future = self._approvals.pop(event.proposal_id, None)
            if future is not None and not future.done():
                _fail(future, ProposalRejected(event.code, event.message))
        elif isinstance(event, ProposalExpired):
            future = self._approvals.pop(event.proposal_id, None)
            if future is not None and not future.done():
                _fail(future, RequestExpired(errors.SESSION_REQUEST_EXPIRED, "The proposal expired"))
        elif isinstance(event, ResponseReceived):
            answer = self._answers.pop(event.id, None)
            if answer is not None and not answer.done():
                if event.ok:
                    answer.set_result(event.result)
                else:
                    _fail(answer, RequestRejected(event.code, event.message))
        elif isinstance(event, RequestTimedOut):
            answer = self._answers.pop(event.id, None)
            if answer is not None and not answer.done():
                _fail(answer, RequestExpired(errors.SESSION_REQUEST_EXPIRED, f"{event.method} expired"))
        elif isinstance(event, (SessionDeleted, SessionExpired)):
            for request_id, topic in list(self._answer_topics.items()):
                if topic != event.topic:
                    continue
                answer = self._answers.pop(request_id, None)
                if answer is not None and not answer.done():
                    _fail(answer, SessionGone(errors.USER_DISCONNECTED, "The session ended"))


__all__ = ["Connection", "SignClient", "WalletConnectError", "payload_id"]
