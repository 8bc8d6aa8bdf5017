"""Opening and closing the modal (behaviour.md §2, "Opening rules")."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING

from ..core.cmds import StartTimer
from ..core.shape import On, Slice
from ..core.msg import Msg
from . import router
from ..wire.frames import ToggleArgs

if TYPE_CHECKING:
    from .model import Model, Step

SHAKE_MS = 500
SIGN_AND_APPROVE_VIEWS = ("SIWXSignMessage", "ConnectingSiwe", "ApproveTransaction")
# Views that draw the connected account (its address, balances, the wallet it signs with or the
# network it is on): `open({view})` naming one of them with no account follows the opening rules.
NEEDS_ACCOUNT = ("Account", "WalletSend", "WalletSendPreview", "WalletReceive", "SIWXSignMessage",
                 "UnsupportedChain", "RegisterAccountName")
# Views about one wallet, named by a route parameter the host API cannot give, and the outcome of
# a registration the visitor started (RegisterAccountNameSuccess): the same; so are the embedded
# wallet's views, which need a pending email, request or provider.
NEEDS_PARAM = ("ConnectingExternal", "WalletPage", "RegisterAccountNameSuccess", "EmailVerifyOtp",
               "ApproveTransaction", "ConnectingSocial", "ConnectingFarcaster")


@dataclass(frozen=True)
class ModalState:
    open: bool = False
    loading: bool = False
    selected_network_id: str | None = None
    active_chain: str | None = None
    initialized: bool = False
    shake: int = 0
    shaking: bool = False
    legal_agreed: bool = False  # the visitor ticked the legal checkbox (features.legalCheckbox)


@dataclass(frozen=True)
class ShakeEnded(Msg):
    pass


def blocked_by_unsupported_chain(model: Model) -> bool:
    """The wallet is on a network the host did not request, network switching is on, unsupported
    chains are not allowed and the connection is not basic: UnsupportedChain stands for Account."""
    options = model.options
    return (model.networks.unsupported is not None and options.enableNetworkSwitch
            and not options.allowUnsupportedChain and not options.manualWCControl)


def opening_view(model: Model) -> str:
    """The view `open()` shows when the caller names none, as AppKit's ModalController.open picks
    it: the plain wallet list (AllWallets on a phone) only with manual pairing control, or with no
    adapters and no address; otherwise Account when connected, else Connect, on a phone too
    (where email, socials, WalletConnect and "What is a wallet?" live; issue 28). Connected on a
    network the host did not request, Account is UnsupportedChain (as AppKit's account button
    opens it), not an Account whose balance, Buy, Swap and Send would all act on a network the
    app does not support."""
    has_address = model.accounts.active_address(model.networks.active_namespace) is not None
    no_adapters = not model.options.networks
    if model.options.manualWCControl or (no_adapters and not has_address):
        return "AllWallets" if model.env.mobile else "ConnectingWalletConnectBasic"
    if has_address:
        return "UnsupportedChain" if blocked_by_unsupported_chain(model) else "Account"
    return "Connect"


def host_can_open(model: Model, view: str | None) -> bool:
    """The caller's view is drawn only when it exists and the state can fill it (behaviour.md §2)."""
    if view is None or view not in router.VIEWS or view in NEEDS_PARAM:
        return False
    if view in NEEDS_ACCOUNT:
        return model.accounts.active_address(model.networks.active_namespace) is not None
    return True


def open_modal(model: Model, view: str | None = None) -> Step:
    target = view if view is not None and host_can_open(model, view) else opening_view(model)
    return (
        replace(
            model,
            router=router.reset(model.router, target),
            modal=replace(model.modal, open=True),
        ),
        [],
    )


def closing_allowed(model: Model, *, force: bool = False) -> bool:
    view = model.router.view
    if force:
        return True
    if view == "ApproveTransaction":
        return False
    if view in SIGN_AND_APPROVE_VIEWS and model.siwx.required and not model.siwx.has_session:
        return False
    return True


def close(model: Model, *, force: bool = False) -> Step:
    if not closing_allowed(model, force=force):
        return shake(model)
    if model.options.embedded:
        # the embedded modal stays on the page: it starts over on Account or Connect, with no
        # back step into the views it was closed from
        view = "Account" if model.accounts.active_address(model.networks.active_namespace) else "Connect"
        return replace(model, router=router.reset(model.router, view),
                       modal=replace(model.modal, loading=False)), []
    return replace(model, modal=replace(model.modal, open=False, loading=False)), []


def shake(model: Model) -> Step:
    modal = replace(model.modal, shake=model.modal.shake + 1, shaking=True)
    return replace(model, modal=modal), [StartTimer("shake", SHAKE_MS, ShakeEnded())]


def on_shake_ended(model: Model, msg: ShakeEnded, now: int) -> Step:
    return replace(model, modal=replace(model.modal, shaking=False)), []


def set_loading(model: Model, loading: bool) -> Model:
    return replace(model, modal=replace(model.modal, loading=loading))


@dataclass(frozen=True)
class ToggledLegal(Msg):
    checked: bool


def toggle_legal(args: ToggleArgs) -> Msg:
    return ToggledLegal(args.checked)


def legal_links(model: Model) -> tuple[str | None, str | None]:
    """The host's terms and privacy links, when the legal checkbox is on (AppKit shows it only
    with `features.legalCheckbox` and at least one of the two URLs)."""
    options = model.options
    if not options.features.legalCheckbox:
        return None, None
    return options.termsConditionsUrl, options.privacyPolicyUrl


def legal_gate_closed(model: Model) -> bool:
    """Wallets and connect methods are disabled until the legal checkbox is ticked."""
    return any(legal_links(model)) and not model.modal.legal_agreed


def on_toggled_legal(model: Model, msg: ToggledLegal, now: int) -> Step:
    return replace(model, modal=replace(model.modal, legal_agreed=msg.checked)), []


HANDLERS = (On(ShakeEnded, on_shake_ended), On(ToggledLegal, on_toggled_legal))

SLICE = Slice("modal", HANDLERS)
