"""What the dApp side's protocol steps report (typed, plain data)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .state import SessionState


@dataclass(frozen=True)
class Outgoing:
    """A JSON-RPC payload to seal with `sym_key` and publish on `topic` with its tag and TTL."""

    topic: str
    payload: str
    sym_key: str
    tag: int
    ttl: int


@dataclass(frozen=True)
class ProposalApproved:
    proposal_id: int
    session_topic: str


@dataclass(frozen=True)
class ProposalDeclined:
    proposal_id: int
    code: int
    message: str


@dataclass(frozen=True)
class ProposalExpired:
    """No answer from a wallet before the proposal's expiry."""

    proposal_id: int


@dataclass(frozen=True)
class SessionSettled:
    session: SessionState


@dataclass(frozen=True)
class SessionUpdated:
    session: SessionState


@dataclass(frozen=True)
class SessionExtended:
    topic: str
    expiry: int


@dataclass(frozen=True)
class SessionEvent:
    topic: str
    name: str
    data: Any
    chain_id: str


@dataclass(frozen=True)
class SessionDeleted:
    topic: str
    code: int
    message: str
    by_peer: bool


@dataclass(frozen=True)
class SessionExpired:
    topic: str


@dataclass(frozen=True)
class PairingExpired:
    topic: str


@dataclass(frozen=True)
class ResponseReceived:
    """The wallet answered one of our requests (session request, ping, extend, delete)."""

    id: int
    topic: str
    method: str
    ok: bool
    result: Any = None
    code: int = 0
    message: str = ""


@dataclass(frozen=True)
class RequestTimedOut:
    id: int
    topic: str
    method: str


@dataclass(frozen=True)
class Dropped:
    """A relay message that was not acted on, and why (logged as one line)."""

    topic: str
    reason: str


Event = (ProposalApproved | ProposalDeclined | ProposalExpired | SessionSettled | SessionUpdated | SessionExtended
         | SessionEvent | SessionDeleted | SessionExpired | PairingExpired | ResponseReceived
         | RequestTimedOut | Dropped)
