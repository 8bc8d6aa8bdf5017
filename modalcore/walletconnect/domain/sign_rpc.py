"""Typed params and results of every sign RPC (walletconnect-specs sign/rpc-methods), as sent
by the SDK 2.25 (which adds `expiryTimestamp`, `pairingTopic` and `id` to a proposal, names a
request's expiry `expiryTimestamp`, and sends wc_sessionExtend with empty params). Unknown extra fields are kept out, not refused."""

from __future__ import annotations


from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class Metadata(_Model):
    name: str = Field(max_length=256)
    description: str = Field(default="", max_length=2048)
    url: str = Field(default="", max_length=2048)
    icons: list[str] = Field(default_factory=list, max_length=16)


class Relay(_Model):
    protocol: str = "irn"
    data: str | None = None


class Participant(_Model):
    public_key: str = Field(alias="publicKey", pattern=r"^[0-9a-f]{64}$")
    metadata: Metadata


class ProposalNamespace(_Model):
    chains: list[str] = Field(default_factory=list)
    methods: list[str] = Field(default_factory=list)
    events: list[str] = Field(default_factory=list)


class SessionNamespace(_Model):
    chains: list[str] | None = None
    accounts: list[str] = Field(default_factory=list)
    methods: list[str] = Field(default_factory=list)
    events: list[str] = Field(default_factory=list)


class SessionProposeParams(_Model):
    """wc_sessionPropose request params."""

    relays: list[Relay]
    proposer: Participant
    required_namespaces: dict[str, ProposalNamespace] = Field(alias="requiredNamespaces", default_factory=dict)
    optional_namespaces: dict[str, ProposalNamespace] = Field(alias="optionalNamespaces", default_factory=dict)
    expiry_timestamp: int | None = Field(alias="expiryTimestamp", default=None)
    pairing_topic: str | None = Field(alias="pairingTopic", default=None)
    id: int | None = None


class SessionProposeResult(_Model):
    """wc_sessionPropose success result (the approval)."""

    relay: Relay
    responder_public_key: str = Field(alias="responderPublicKey", pattern=r"^[0-9a-f]{64}$")


class SessionSettleParams(_Model):
    relay: Relay
    controller: Participant
    namespaces: dict[str, SessionNamespace]
    expiry: int  # unix seconds
    session_properties: dict[str, object] | None = Field(alias="sessionProperties", default=None)


class SessionUpdateParams(_Model):
    namespaces: dict[str, SessionNamespace]


class SessionExtendParams(_Model):
    """The spec sends the new absolute expiry; SDK 2.25 sends `{}` and each side sets now + 7 days."""

    expiry: int | None = None


class SessionPingParams(_Model):
    pass


class EventBody(_Model):
    name: str = Field(min_length=1, max_length=128)
    data: object = None


class SessionEventParams(_Model):
    event: EventBody
    chain_id: str = Field(alias="chainId")


class RequestBody(_Model):
    method: str = Field(min_length=1, max_length=128)
    params: object = None
    expiry_timestamp: int | None = Field(alias="expiryTimestamp", default=None)


class SessionRequestParams(_Model):
    request: RequestBody
    chain_id: str = Field(alias="chainId")


class SessionDeleteParams(_Model):
    code: int
    message: str = ""


PARAMS: dict[str, type[_Model]] = {
    "wc_sessionPropose": SessionProposeParams,
    "wc_sessionSettle": SessionSettleParams,
    "wc_sessionUpdate": SessionUpdateParams,
    "wc_sessionExtend": SessionExtendParams,
    "wc_sessionPing": SessionPingParams,
    "wc_sessionEvent": SessionEventParams,
    "wc_sessionRequest": SessionRequestParams,
    "wc_sessionDelete": SessionDeleteParams,
}


def dump(model: BaseModel) -> dict[str, object]:
    """Wire form: camelCase aliases, no None fields."""
    return model.model_dump(by_alias=True, exclude_none=True)
