"""Sign-In with Ethereum, issued and verified by the engine (behaviour.md §3 SIWX, §4 SIWX, §8).

After a connect, sessions are looked up; none means SIWXSignMessage. Signing asks the engine
for a nonce (a service, so replays stay deterministic), builds the EIP-4361 message for the
origin verified at the handshake, has the wallet `personal_sign` it and the engine verify it.
What the session lookup and the nonce answer, and the cancel and failure paths (which may
disconnect), are the sign-in flow, `flows/signin.py`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Cmd, EffectReply, Reply, Track
from ..core.msg import Msg
from ..core.shape import On, Slice
from . import modal, router, snack
from ..rules import limits as L
from ..rules import texts
from ..rules.wallet_requests import NOT_SAVED
from ..siwx.domain.grammar import SiwxMessageError
from ..siwx.domain.message import SiwxMessage
from ..siwx.domain.solana import SiwsMessage
from .connecting import solana_request
from .options import DEFAULT_STATEMENT
from ..services.domain.handles import SIWS_SESSIONS, SIWS_VERIFY, SIWX_NONCE, SIWX_SESSIONS, SIWX_VERIFY

if TYPE_CHECKING:
    from .model import Model, Step

AUTHENTICATING = texts.AUTHENTICATING
DECLINED = texts.SIGNATURE_DECLINED
SMART_ACCOUNTS = texts.SMART_ACCOUNTS
INIT_FAILED = texts.SIWX_INIT_FAILED


@dataclass(frozen=True)
class ApprovedInFarcaster:
    """A sign-in the visitor already approved in their Farcaster client (issue 33): the relay
    channel whose verified answer covers it, and the nonce that answer carries."""

    channel: str
    nonce: str


@dataclass(frozen=True)
class SiwxState:
    enabled: bool = False
    required: bool = False
    has_session: bool = False
    session_address: str | None = None  # caip address the session belongs to
    token: str | None = None  # for the host's backend (host_event "account")
    message: str | None = None  # the message being signed
    signing: bool = False
    approved: ApprovedInFarcaster | None = None  # signed at once when no session is found

    def forgotten(self) -> SiwxState:
        """Disconnected: the sign-in belongs to the account that left."""
        return replace(self, has_session=False, session_address=None, token=None, message=None, signing=False,
                       approved=None)


@dataclass(frozen=True)
class PressedSignIn(Msg):
    pass


@dataclass(frozen=True)
class PressedCancelSignIn(Msg):
    pass


def origin_parts(origin: str) -> tuple[str, str]:
    """(domain, uri) of the page origin the engine verified at the handshake."""
    parts = urlsplit(origin)
    return parts.netloc, f"{parts.scheme}://{parts.netloc}"


def signing_account(model: Model) -> tuple[str, str, int] | None:
    if model.networks.active_namespace != "eip155":
        return None
    account = model.accounts.get("eip155")
    network = model.networks.active
    if account.address is None or network is None or model.networks.unsupported:
        return None
    return account.address, account.caip_address or "", int(network.split(":", 1)[1])


def solana_signing_account(model: Model) -> tuple[str, str, str] | None:
    """(address, caip address, CAIP-2 network) when a Solana account is active (SIWS)."""
    if model.networks.active_namespace != "solana":
        return None
    account = model.accounts.get("solana")
    network = model.networks.active
    if account.address is None or network is None or model.networks.unsupported:
        return None
    return account.address, account.caip_address or "", network


def active_caip(model: Model) -> str | None:
    """The caip address that signs in: the active eip155 or solana account."""
    evm, sol = signing_account(model), solana_signing_account(model)
    return evm[1] if evm else sol[1] if sol else None


class SiwxSessions(BaseModel):
    """What service `siwx.sessions` returns: the stored sessions of an address on a domain."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    sessions: list[dict[str, object]] | None = None


class SiwxNonce(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    nonce: str


class SiwxVerdict(BaseModel):
    """What service `siwx.verify` returns: ok with the session token, or refused and why."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    ok: bool
    token: str | None = None
    reason: str = ""
    error: str = ""


@dataclass(frozen=True)
class SiwxSessionsFetched(Reply):
    """The sign-in sessions of `key` (a CAIP address) came back."""

    result: SiwxSessions | None = None


@dataclass(frozen=True)
class SiwxNonceFetched(Reply):
    result: SiwxNonce | None = None


@dataclass(frozen=True)
class SiwxVerified(Reply):
    """The engine checked the signed message of `key` (a CAIP address)."""

    result: SiwxVerdict | None = None


def check_sessions(model: Model) -> Step:
    """After connect: with sign-in set up, an active address and a supported network,
    look up sessions (behaviour.md §4)."""
    if model.siwx.signing:
        return model, []  # a sign-in is under way (a one-click sign-in connects while signing)
    solana = solana_signing_account(model)
    if model.siwx.enabled and solana is not None:
        return _check_solana_sessions(model, *solana)
    active = signing_account(model)
    if not model.siwx.enabled or active is None:
        return model, []
    address, caip, chain_id = active
    if model.siwx.has_session and model.siwx.session_address == caip:
        return model, []
    domain, _ = origin_parts(model.origin)
    siwx = replace(model.siwx, has_session=False, token=None, session_address=None)
    call = SIWX_SESSIONS.call_or_refusal({"address": address, "domain": domain, "chain_id": chain_id},
                                         SiwxSessionsFetched, caip)
    return replace(model, siwx=siwx), [call]


def _check_solana_sessions(model: Model, address: str, caip: str, network: str) -> Step:
    if model.siwx.has_session and model.siwx.session_address == caip:
        return model, []
    domain, _ = origin_parts(model.origin)
    siwx = replace(model.siwx, has_session=False, token=None, session_address=None)
    call = SIWS_SESSIONS.call_or_refusal({"address": address, "domain": domain, "chain": network},
                                         SiwxSessionsFetched, caip)
    return replace(model, siwx=siwx), [call]


@dataclass(frozen=True)
class MessageFields:
    """What every sign-in message of this session shares, SIWE or SIWS, personal_sign or
    one-click: the verified origin's domain and URI and the host's statement, lifetime and
    resources (behaviour.md §3 SIWX)."""

    domain: str
    uri: str
    statement: str | None
    ttl_ms: int | None
    resources: tuple[str, ...] | None


def message_fields(model: Model) -> MessageFields:
    options = model.options.siwx
    domain, uri = origin_parts(model.origin)
    return MessageFields(
        domain=domain, uri=uri,
        statement=(DEFAULT_STATEMENT if options.statement is None else options.statement) if options else None,
        ttl_ms=options.expirationSeconds * 1000 if options else None,
        resources=tuple(options.resources) if options else None,
    )


def sign_in_message(model: Model, nonce: str, now: int, fields: MessageFields | None = None) -> tuple[str, str, str] | None:
    """The one sign-in message builder: (namespace, address, text) for the active account, the
    EIP-4361 message (SIWE) for an eip155 account or the CAIP-122 one (SIWS) for a Solana
    account, issued at `now` with the engine's `nonce`; None when no account signs in or a field
    breaks the message grammar. `fields`: other than the session's (`message_fields`)."""
    f = fields or message_fields(model)
    resources = list(f.resources) if f.resources is not None else None
    try:
        solana = solana_signing_account(model)
        if solana is not None:
            address, _, network = solana
            return "solana", address, SiwsMessage.create(
                domain=f.domain, address=address, uri=f.uri, chain_id=network, nonce=nonce, now_ms=now,
                statement=f.statement, ttl_ms=f.ttl_ms, resources=resources).to_text()
        evm = signing_account(model)
        if evm is not None:
            address, _, chain_id = evm
            return "eip155", address, SiwxMessage.create(
                domain=f.domain, address=address, uri=f.uri, chain_id=chain_id, nonce=nonce, now_ms=now,
                statement=f.statement, ttl_ms=f.ttl_ms, resources=resources).to_text()
    except SiwxMessageError:
        return None
    return None


def solana_sign_request(model: Model, nonce: str, now: int) -> Step | None:
    """SIWS: the CAIP-122 message for the active Solana account, to sign with
    solana:signMessage; None when no Solana account signs in or the message cannot be built."""
    built = sign_in_message(model, nonce, now)
    if built is None or built[0] != "solana":
        return None
    _, address, message = built
    account = model.accounts.get("solana")
    model = replace(model, siwx=replace(model.siwx, message=message))
    params: dict[str, object] = {"message": base64.b64encode(message.encode()).decode(), "account": address}
    model, effect = solana_request(model, account.connector_id or "", "solana:signMessage", params,
                                   SiwxMessageSigned)
    return model, [effect]


def on_pressed_sign(model: Model, msg: PressedSignIn, now: int) -> Step:
    if model.siwx.signing or active_caip(model) is None:
        return model, []
    model = replace(model, siwx=replace(model.siwx, signing=True))
    model, cmds = snack.show_loading(model, AUTHENTICATING)
    call = SIWX_NONCE.call(SIWX_NONCE.args(session_key=model.session_id), SiwxNonceFetched)
    return model, [*cmds, call]


@dataclass(frozen=True)
class SiwxMessageSigned(EffectReply):
    """The wallet answered personal_sign of the sign-in message."""


def _on_solana_signed(model: Model, msg: SiwxMessageSigned, address: str, caip: str, network: str) -> Step:
    signature = msg.result.get("signature") if isinstance(msg.result, dict) else None
    if not msg.ok or not isinstance(signature, str) or len(signature) > L.SOLANA_SIGNATURE_CHARS:
        return _sign_failed(model, msg.error_message, msg.failure is not None and msg.failure.kind == "not_sent")
    domain, uri = origin_parts(model.origin)
    args: dict[str, object] = {
        "message": model.siwx.message, "signature": signature, "session_key": model.session_id,
        "domain": domain, "uri": uri, "chain": network, "address": address,
    }
    return model, [SIWS_VERIFY.call_or_refusal(args, SiwxVerified, caip)]


def on_signed(model: Model, msg: SiwxMessageSigned, now: int) -> Step:
    solana = solana_signing_account(model)
    if model.siwx.signing and solana is not None and model.siwx.message is not None:
        return _on_solana_signed(model, msg, *solana)
    active = signing_account(model)
    if not model.siwx.signing or active is None or model.siwx.message is None:
        return model, []
    if not msg.ok or not isinstance(msg.result, str):
        return _sign_failed(model, msg.error_message, msg.failure is not None and msg.failure.kind == "not_sent")
    return model, [verify_call(model, msg.result)]


def verify_call(model: Model, signature: str) -> Cmd:
    """The engine verifies the signed message (`model.siwx.message`) of the active eip155
    account and stores the sign-in (service `siwx.verify`): after personal_sign, and after a
    one-click sign-in with the CACAO's message and signature."""
    active = signing_account(model)
    assert active is not None, "verify_call needs an active eip155 account"
    address, caip, chain_id = active
    domain, uri = origin_parts(model.origin)
    args: dict[str, object] = {
        "message": model.siwx.message, "signature": signature, "session_key": model.session_id,
        "domain": domain, "uri": uri, "chain_id": chain_id, "address": address,
        "rpc_url": model.networks.active_rpc_url,
    }
    return SIWX_VERIFY.call_or_refusal(args, SiwxVerified, caip)


def on_verified(model: Model, msg: SiwxVerified, now: int) -> Step:
    if not model.siwx.signing:
        return model, []
    caip = msg.key
    result = msg.result
    if result is None or not result.ok:
        if model.router.view != "SIWXSignMessage":  # a one-click sign-in refused: sign with personal_sign
            model = replace(model, router=router.reset(model.router, "SIWXSignMessage"))
        return _sign_failed(model, (result.error if result else "") or msg.error or "verification failed")
    siwx = replace(model.siwx, has_session=True, session_address=caip, token=result.token,
                   message=None, signing=False)
    model, cmds = snack.hide(replace(model, siwx=siwx))
    model = replace(model, router=router.reset(model.router, "Account"))
    model, more = modal.close(model, force=True)
    return model, [*cmds, *more, Track("SIWX_AUTH_SUCCESS", {"caipAddress": caip})]


def _sign_failed(model: Model, detail: str, unsent: bool = False) -> Step:
    """`unsent`: the wallet was never asked (the engine could not save the session first)."""
    smart = model.accounts.get("eip155").preferred_account_type == "smartAccount"
    model = replace(model, siwx=replace(model.siwx, signing=False, message=None))
    model, cmds = snack.show_error(model, NOT_SAVED if unsent else SMART_ACCOUNTS if smart else DECLINED)
    return model, [*cmds, Track("SIWX_AUTH_ERROR", {"message": detail})]


def forget(model: Model) -> Model:
    """Disconnected: the sign-in belongs to the account that left."""
    return replace(model, siwx=model.siwx.forgotten())


HANDLERS = (
    On(SiwxMessageSigned, on_signed),
    On(PressedSignIn, on_pressed_sign),
    On(SiwxVerified, on_verified),
)

SLICE = Slice("siwx", HANDLERS)
