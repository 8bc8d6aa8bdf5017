"""The dApp side's WalletConnect state as plain, serialisable data.

Everything a later engine slice keeps in the session store: pairing and session keys, topics,
expiries, the proposal in flight and the requests awaiting an answer. `DappState.model_dump_json()`
and `DappState.model_validate_json()` round-trip it; the key material sits in the `*_key`
fields only (`secret_fields()`), so encrypting at rest can wrap exactly those.

The relay identity (`didjwt.ClientIdentity.seed`) is per process, not per visitor: persist it
beside the states so a restarted engine presents the same client id and the relay's mailbox does
not hand back what it already acknowledged.
"""

from __future__ import annotations


from pydantic import BaseModel, ConfigDict, Field

from ..domain.sign_rpc import Metadata, SessionNamespace


class _State(BaseModel):
    model_config = ConfigDict(frozen=True)


class PairingState(_State):
    topic: str
    sym_key: str
    expiry: int  # unix seconds
    active: bool = False  # a wallet answered on it
    peer: Metadata | None = None
    methods: list[str] = Field(default_factory=list)  # the URI's `methods` (wc_sessionAuthenticate)


class ProposalState(_State):
    id: int
    pairing_topic: str
    private_key: str  # our X25519 key for this proposal
    public_key: str
    expiry: int  # unix seconds
    chains: list[str] = Field(default_factory=list)


class SessionState(_State):
    topic: str
    sym_key: str
    pairing_topic: str
    proposal_id: int
    self_public_key: str
    peer_public_key: str = ""
    peer: Metadata | None = None
    namespaces: dict[str, SessionNamespace] = Field(default_factory=dict)
    expiry: int = 0  # unix seconds; 0 until settled
    settled: bool = False
    cacaos: list[dict[str, object]] = Field(default_factory=list)  # one-click sign-in: the wallet's CACAOs

    @property
    def accounts(self) -> list[str]:
        """CAIP-10 accounts the wallet granted, in its order."""
        return [account for ns in self.namespaces.values() for account in ns.accounts]


class AuthRequestState(_State):
    """A wc_sessionAuthenticate in flight: its answer comes on `response_topic` (sha256 of our
    public key) in a type 1 envelope; `proposal_id` is the fallback proposal sent beside it."""

    id: int
    pairing_topic: str
    response_topic: str
    private_key: str
    public_key: str
    proposal_id: int
    expiry: int  # unix seconds
    payload: dict[str, object]  # the authPayload sent (what each CACAO must answer)


class PendingRequest(_State):
    id: int
    topic: str
    method: str
    expiry: int  # unix seconds after which the answer no longer matters


class DappState(_State):
    pairings: dict[str, PairingState] = Field(default_factory=dict)
    proposals: dict[int, ProposalState] = Field(default_factory=dict)
    sessions: dict[str, SessionState] = Field(default_factory=dict)
    requests: dict[int, PendingRequest] = Field(default_factory=dict)
    auths: dict[int, AuthRequestState] = Field(default_factory=dict)
    seen: tuple[int, ...] = ()  # ids of the last requests the wallet sent us (replays dropped)

    def key_for(self, topic: str) -> str | None:
        """The symmetric key that opens messages on `topic`, if the topic is ours."""
        if topic in self.sessions:
            return self.sessions[topic].sym_key
        if topic in self.pairings:
            return self.pairings[topic].sym_key
        return None

    def topics(self) -> list[str]:
        """Every topic to be subscribed for this state (pairings and sessions)."""
        return [*self.pairings, *self.sessions, *(a.response_topic for a in self.auths.values())]

    def auth_on(self, topic: str) -> AuthRequestState | None:
        """The authenticate request whose answers arrive on `topic`, if any."""
        return next((a for a in self.auths.values() if a.response_topic == topic), None)


SECRET_FIELDS = ("sym_key", "private_key")


def secret_fields() -> tuple[str, ...]:
    """Names of the fields that hold key material (to encrypt at rest)."""
    return SECRET_FIELDS


def session_chains(session: SessionState) -> list[str]:
    """The chains a settled session covers: its namespaces' chains and its accounts' chains."""
    chains: list[str] = []
    for ns in session.namespaces.values():
        for chain in (ns.chains or []) + [":".join(a.split(":")[:2]) for a in ns.accounts]:
            if chain not in chains:
                chains.append(chain)
    return chains


def session_methods(session: SessionState) -> set[str]:
    return {m for ns in session.namespaces.values() for m in ns.methods}
