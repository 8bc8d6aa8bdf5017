"""Sign-In with Ethereum, issued and verified by the engine (SPEC §3 SIWX, §4 SIWX, §8).

After a connect, sessions are looked up; none means SIWXSignMessage. Signing asks the engine
for a nonce (a service, so replays stay deterministic), builds the EIP-4361 message for the
origin verified at the handshake, has the wallet `personal_sign` it and the engine verify it.
What the session lookup and the nonce answer, and the cancel and failure paths (which may
disconnect), are the sign-in flow, `flows/signin.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Call, EffectReply, Reply, Track
from ..core.msg import Msg
from ..core.shape import Handler, Slice
from . import modal, router, snack
from ..rules import texts

if TYPE_CHECKING:
    from .model import Model, Step

AUTHENTICATING = texts.AUTHENTICATING
DECLINED = texts.SIGNATURE_DECLINED
SMART_ACCOUNTS = texts.SMART_ACCOUNTS
INIT_FAILED = texts.SIWX_INIT_FAILED


@dataclass(frozen=True)
class SiwxState:
    enabled: bool = False
    required: bool = False
    has_session: bool = False
    session_address: str | None = None  # caip address the session belongs to
    token: str | None = None  # for the host's backend (host_event "account")
    message: str | None = None  # the message being signed
    signing: bool = False

    def forgotten(self) -> SiwxState:
        """Disconnected: the sign-in belongs to the account that left."""
        return replace(self, has_session=False, session_address=None, token=None, message=None, signing=False)


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
    account = model.accounts.get("eip155")
    network = model.networks.active
    if account.address is None or network is None or model.networks.unsupported:
        return None
    return account.address, account.caip_address or "", int(network.split(":", 1)[1])


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
    look up sessions (SPEC §4)."""
    active = signing_account(model)
    if not model.siwx.enabled or active is None:
        return model, []
    address, caip, chain_id = active
    if model.siwx.has_session and model.siwx.session_address == caip:
        return model, []
    domain, _ = origin_parts(model.origin)
    siwx = replace(model.siwx, has_session=False, token=None, session_address=None)
    call = Call("siwx.sessions", {"address": address, "domain": domain, "chain_id": chain_id},
                SiwxSessionsFetched, caip)
    return replace(model, siwx=siwx), [call]


def on_pressed_sign(model: Model, msg: PressedSignIn, now: int) -> Step:
    if model.siwx.signing or signing_account(model) is None:
        return model, []
    model = replace(model, siwx=replace(model.siwx, signing=True))
    model, cmds = snack.show_loading(model, AUTHENTICATING)
    call = Call("siwx.nonce", {"session_key": model.session_id}, SiwxNonceFetched)
    return model, [*cmds, call]


@dataclass(frozen=True)
class SiwxMessageSigned(EffectReply):
    """The wallet answered personal_sign of the sign-in message."""


def on_signed(model: Model, msg: SiwxMessageSigned, now: int) -> Step:
    active = signing_account(model)
    if not model.siwx.signing or active is None or model.siwx.message is None:
        return model, []
    if not msg.ok or not isinstance(msg.result, str):
        return _sign_failed(model, msg.error_message)
    address, caip, chain_id = active
    domain, uri = origin_parts(model.origin)
    network = model.networks.active_network
    args: dict[str, object] = {
        "message": model.siwx.message, "signature": msg.result, "session_key": model.session_id,
        "domain": domain, "uri": uri, "chain_id": chain_id, "address": address,
        "rpc_url": network.rpc_urls[0] if network and network.rpc_urls else None,
    }
    return model, [Call("siwx.verify", args, SiwxVerified, caip)]


def on_verified(model: Model, msg: SiwxVerified, now: int) -> Step:
    if not model.siwx.signing:
        return model, []
    caip = msg.key
    result = msg.result
    if result is None or not result.ok:
        return _sign_failed(model, (result.error if result else "") or msg.error or "verification failed")
    siwx = replace(model.siwx, has_session=True, session_address=caip, token=result.token,
                   message=None, signing=False)
    model, cmds = snack.hide(replace(model, siwx=siwx))
    model = replace(model, router=router.reset(model.router, "Account"))
    model, more = modal.close(model, force=True)
    return model, [*cmds, *more, Track("SIWX_AUTH_SUCCESS", {"caipAddress": caip})]


def _sign_failed(model: Model, detail: str) -> Step:
    smart = model.accounts.get("eip155").preferred_account_type == "smartAccount"
    model = replace(model, siwx=replace(model.siwx, signing=False, message=None))
    model, cmds = snack.show_error(model, SMART_ACCOUNTS if smart else DECLINED)
    return model, [*cmds, Track("SIWX_AUTH_ERROR", {"message": detail})]


def forget(model: Model) -> Model:
    """Disconnected: the sign-in belongs to the account that left."""
    return replace(model, siwx=model.siwx.forgotten())


HANDLERS: dict[type[Msg], Handler] = {
    SiwxMessageSigned: on_signed,
    PressedSignIn: on_pressed_sign,
    SiwxVerified: on_verified,
}

SLICE = Slice("siwx", HANDLERS)
