"""Sign-In with Ethereum, issued and verified by the engine (SPEC §3 SIWX, §4 SIWX, §8).

After a connect, sessions are looked up; none means SIWXSignMessage. Signing asks the engine
for a nonce (a service, so replays stay deterministic), builds the EIP-4361 message for the
origin verified at the handshake, has the wallet `personal_sign` it and the engine verify it.
"""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..core.cmds import Call, CallSettled, Cmd, EffectSettled, Track
from ..core.msg import Msg
from ..core.shape import Handler, Slice, purpose
from ..siwx.message import SiwxMessage, SiwxMessageError
from . import modal, router, snack
from ..rules import texts
from .connecting import wallet_request
from .disconnect import start as disconnect

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


def _active(model: Model) -> tuple[str, str, int] | None:
    account = model.accounts.get("eip155")
    network = model.networks.active
    if account.address is None or network is None or model.networks.unsupported:
        return None
    return account.address, account.caip_address or "", int(network.split(":", 1)[1])


def check_sessions(model: Model) -> Step:
    """After connect: with sign-in set up, an active address and a supported network,
    look up sessions (SPEC §4)."""
    active = _active(model)
    if not model.siwx.enabled or active is None:
        return model, []
    address, caip, chain_id = active
    if model.siwx.has_session and model.siwx.session_address == caip:
        return model, []
    domain, _ = origin_parts(model.origin)
    siwx = replace(model.siwx, has_session=False, token=None, session_address=None)
    call = Call("siwx.sessions", {"address": address, "domain": domain, "chain_id": chain_id},
                purpose("siwx.sessions", caip))
    return replace(model, siwx=siwx), [call]


def on_sessions(model: Model, msg: CallSettled, now: int, caip: str) -> Step:
    active = _active(model)
    if active is None or active[1] != caip:
        return model, []
    if not msg.ok or not isinstance(msg.result, dict):
        return _init_failed(model)
    sessions = msg.result.get("sessions") or []
    if sessions:
        siwx = replace(model.siwx, has_session=True, session_address=caip)
        model = replace(model, siwx=siwx)
        if model.router.view == "ConnectingExternal":  # the connect that started this is done
            model = replace(model, router=router.reset(model.router, "Account"))
            return modal.close(model, force=True)
        return model, []
    model = replace(model, router=router.reset(model.router, "SIWXSignMessage"),
                    modal=replace(model.modal, open=True))
    return model, []


def on_pressed_sign(model: Model, msg: PressedSignIn, now: int) -> Step:
    if model.siwx.signing or _active(model) is None:
        return model, []
    model = replace(model, siwx=replace(model.siwx, signing=True))
    model, cmds = snack.show_loading(model, AUTHENTICATING)
    call = Call("siwx.nonce", {"session_key": model.session_id}, "siwx.nonce")
    return model, [*cmds, call]


def on_nonce(model: Model, msg: CallSettled, now: int, param: str) -> Step:
    active = _active(model)
    if not model.siwx.signing or active is None:
        return model, []
    nonce = msg.result.get("nonce") if msg.ok and isinstance(msg.result, dict) else None
    if not isinstance(nonce, str):
        return _init_failed(model)
    address, _, chain_id = active
    options = model.options.siwx
    domain, uri = origin_parts(model.origin)
    try:
        message = SiwxMessage.create(
            domain=domain, address=address, uri=uri, chain_id=chain_id, nonce=nonce, now_ms=now,
            statement=options.statement if options else None,
            ttl_ms=options.expirationSeconds * 1000 if options else None,
            resources=list(options.resources) if options else None,
        ).to_text()
    except SiwxMessageError:
        return _init_failed(model)
    account = model.accounts.get("eip155")
    model = replace(model, siwx=replace(model.siwx, message=message))
    model, effect = wallet_request(
        model, account.connector_id or "", "personal_sign",
        ["0x" + message.encode().hex(), address.lower()], "siwx.sign",
    )
    return model, [effect]


def on_signed(model: Model, msg: EffectSettled, now: int, param: str) -> Step:
    active = _active(model)
    if not model.siwx.signing or active is None or model.siwx.message is None:
        return model, []
    if not msg.ok or not isinstance(msg.result, str):
        return _sign_failed(model, msg.error_message)
    address, caip, chain_id = active
    domain, uri = origin_parts(model.origin)
    network = model.networks.active_network
    args: dict[str, Any] = {
        "message": model.siwx.message, "signature": msg.result, "session_key": model.session_id,
        "domain": domain, "uri": uri, "chain_id": chain_id, "address": address,
        "rpc_url": network.rpc_urls[0] if network and network.rpc_urls else None,
    }
    return model, [Call("siwx.verify", args, purpose("siwx.verify", caip))]


def on_verified(model: Model, msg: CallSettled, now: int, caip: str) -> Step:
    if not model.siwx.signing:
        return model, []
    result = msg.result if msg.ok and isinstance(msg.result, dict) else {}
    if not result.get("ok"):
        return _sign_failed(model, str(result.get("error") or msg.error or "verification failed"))
    siwx = replace(model.siwx, has_session=True, session_address=caip, token=result.get("token"),
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


def _init_failed(model: Model) -> Step:
    model = replace(model, siwx=replace(model.siwx, signing=False, message=None))
    model, cmds = snack.show_error(model, INIT_FAILED)
    model, more = disconnect(model)
    return replace(model, router=router.reset(model.router, "Connect")), [*cmds, *more]


def on_cancel(model: Model, msg: PressedCancelSignIn, now: int) -> Step:
    """Cancelling disconnects if sign-in is required, otherwise closes; then resets to Connect."""
    track: list[Cmd] = [Track("CLICK_CANCEL_SIWX", {})]
    model = replace(model, siwx=replace(model.siwx, signing=False, message=None))
    model, hidden = snack.hide(model)
    if model.siwx.required:
        model, cmds = disconnect(model)
    else:
        model, cmds = modal.close(model, force=True)
    return replace(model, router=router.reset(model.router, "Connect")), [*track, *hidden, *cmds]


def forget(model: Model) -> Model:
    """Disconnected: the sign-in belongs to the account that left."""
    return replace(model, siwx=model.siwx.forgotten())


HANDLERS: dict[type[Msg], Handler] = {PressedSignIn: on_pressed_sign, PressedCancelSignIn: on_cancel}

SLICE = Slice("siwx", HANDLERS, effect_results={"siwx.sign": on_signed},
              call_results={"siwx.sessions": on_sessions, "siwx.nonce": on_nonce, "siwx.verify": on_verified})
