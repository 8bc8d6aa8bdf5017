"""The Account view: address, balance, network, wallet features, tabs, disconnect."""

from __future__ import annotations

from urllib.parse import urlencode

from ..slices.model import Model
from ..rules.format import floor3, usd
from ..slices.account_ui import TABS, PressedCopyAddress, select_tab
from ..flows.disconnect import PressedDisconnect
from ..flows.social import NAMES as SOCIAL_NAMES
from ..slices.navigation import PressedNavigate
from ..slices.register_name import can_register
from ..slices.smart_account import (
    SMART_ACCOUNT,
    SWITCH_TO_EOA,
    SWITCH_TO_SMART,
    PressedSwitchAccountType,
    shown_type,
    smart_account_of,
)
from ..rules.embedded import AUTH_CONNECTOR_ID
from ..wire.nodes import Node, node
from . import logos, parts
from .activity_tab import activity
from .approve_transaction import theme_key
from .nfts_tab import nfts

TITLE = ""
LABEL = "Account"
# what is shown now (AppKit's w3m-profile-wallets-view descriptions)
SMART_ACCOUNT_SHOWN = "Smart Account"
EOA_SHOWN = "EOA Account"

# behaviour.md §1 wallet feature order: onramp, swaps, receive, send; each drawn when its feature flag is
# on and this engine has its view.
FEATURES = (
    ("onramp", "Buy", "card", "OnRamp"),
    ("swaps", "Swap", "swap", "Swap"),
    ("receive", "Receive", "receive", "WalletReceive"),
    ("send", "Send", "send", "WalletSend"),
)


def header_leading(model: Model) -> Node:
    network = model.networks.active_network
    name = network.name if network else "Select network"
    return node("chip", "account/network", on={"press": PressedNavigate("Networks")},
                pending={"press": "busy"}, text=name, image=parts.network_image(network) if network else None,
                icon="network", label=f"{name}, switch network")


def body(model: Model) -> Node:
    namespace = model.networks.active_namespace
    account = model.accounts.get(namespace)
    address = account.address or ""
    balance = account.balance
    symbol = account.balance_symbol or (model.networks.active_network.native.symbol
                                        if model.networks.active_network else "")
    amount: Node
    if balance is None:
        amount = node("skeleton", "account/balance", w=120, h=24)
    else:
        amount = node("text", "account/balance", text=f"{balance} {symbol}".strip(), variant="amount")
    top = node("stack", "account/top", [
        node("avatar", "account/avatar", address=address, image=account.profile_image, size=64),
        parts.row("account/address-row", [
            node("text", "account/address", text=account.profile_name or parts.truncate_address(address),
                 variant="label"),
            node("button", "account/copy", on={"press": PressedCopyAddress()}, text="", icon="copy",
                 variant="ghost", label="Copy address"),
        ], gap=4, justify="center"),
        amount,
        *_embedded_user(account.user_email, account.user_name, account.social_provider),
    ], dir="col", gap=8, align="center")
    return parts.column("account/body", [
        top,
        _features(model),
        *_register_name(model),
        *_account_type(model),
        *_passkey(model),
        node("tabs", "account/tabs", on={"select": select_tab}, items=list(TABS), active=account.current_tab),
        _tab_content(model),
        node("list-item", "account/disconnect", on={"press": PressedDisconnect()}, pending={"press": "busy"},
             title="Disconnect", icon="disconnect"),
    ], gap=16)


def _embedded_user(email: str | None, username: str | None, provider: str | None) -> list[Node]:
    """An embedded wallet's user (issue 15 §5): the email, or the social provider's username."""
    if provider and (email or username):
        # a social sign-in: the provider's account, not a mail address the visitor typed
        shown = email or username or ""
        service = SOCIAL_NAMES.get(provider, provider)
        # the provider's own mark, not a generic person (issue 39 item 9)
        mark = logos.SOCIALS.get(provider)
        return [node("chip", "account/user", text=shown, image=mark, icon=None if mark else "user",
                     label=f"Signed in with {service} as {shown}")]
    if email:
        return [node("chip", "account/user", text=email, icon="mail", label=f"Signed in as {email}")]
    return []


def _register_name(model: Model) -> list[Node]:
    """An account of the auth connector without a name may choose one (behaviour.md §5)."""
    account = model.accounts.get(model.networks.active_namespace)
    if account.profile_name or not can_register(model):
        return []
    return [node("list-item", "account/register-name", on={"press": PressedNavigate("RegisterAccountName")},
                 title="Choose a name", subtitle="A name for your address", icon="plus", chevron=True)]


PASSKEY_PATH = "/embedded/passkey"


def _passkey(model: Model) -> list[Node]:
    """An embedded account adds a passkey (issue 43 §3) in a frame of the engine's origin, where
    the WebAuthn ceremony runs for the engine as relying party (server/passkey.py)."""
    account = model.accounts.get(model.networks.active_namespace)
    if account.connector_id != AUTH_CONNECTOR_ID or not model.embedded.identity:
        return []
    theme = theme_key(model.theme)
    src = f"{PASSKEY_PATH}?{urlencode({'session': model.session_id, **({'theme': theme} if theme else {})})}"
    return [node("frame", "account/passkey", src=src, title="Add a passkey", height=96)]


def _account_type(model: Model) -> list[Node]:
    """The embedded sign-in on a chain with its smart account switches between it and its EOA
    (AppKit's w3m-smart-account-settings-view, here in Account itself; issue 32)."""
    account = model.accounts.get(model.networks.active_namespace)
    if account.connector_id != AUTH_CONNECTOR_ID or smart_account_of(model, model.networks.active) is None:
        return []
    smart = shown_type(model, model.networks.active) == SMART_ACCOUNT
    return [node("list-item", "account/account-type", on={"press": PressedSwitchAccountType()},
                 pending={"press": "busy"}, title=SWITCH_TO_EOA if smart else SWITCH_TO_SMART,
                 subtitle=SMART_ACCOUNT_SHOWN if smart else EOA_SHOWN, icon="swap", chevron=True)]


def _features(model: Model) -> Node:
    features = model.options.features
    buttons = []
    for flag, label, icon, view in FEATURES:
        if view is None or not getattr(features, flag):
            continue
        buttons.append(node("button", f"account/feature/{flag}", on={"press": PressedNavigate(view)},
                            text=label, icon=icon, variant="secondary"))
    return parts.row("account/features", buttons, gap=8, justify="center")


def _tab_content(model: Model) -> Node:
    account = model.accounts.get(model.networks.active_namespace)
    if account.current_tab == 0:
        return _tokens(model)
    if account.current_tab == 1:
        return nfts(model)
    return activity(model)


def _tokens(model: Model) -> Node:
    account = model.accounts.get(model.networks.active_namespace)
    if model.balances.loading and not account.token_balance:
        rows = [node("skeleton", f"account/tokens/skeleton/{i}", w=312, h=56) for i in range(3)]
        return parts.column("account/tokens", rows)
    rows = []
    for token in account.token_balance:
        key = token.address or "native"
        rows.append(node(
            "token-item", f"account/token/{key}", name=token.name, symbol=token.symbol,
            image=parts.token_image(token.symbol, token.icon_url, token.address or f"native:{token.symbol}"),
            amount=floor3(token.quantity_numeric),
            value=usd(token.value) if token.price else None,
        ))
    if all(not _held(token.quantity_numeric) for token in account.token_balance):
        rows = _fund_your_wallet(model) or [node("text", "account/tokens/empty", text="No tokens on this network",
                                                 variant="small", tone="muted")]
    return parts.column("account/tokens", rows)


def _held(quantity: str) -> bool:
    return any(c in "123456789" for c in quantity)


def _fund_your_wallet(model: Model) -> list[Node]:
    """An empty wallet (nothing held on this network) is offered ways to fund it, as AppKit's
    tokens widget does, instead of a list of zeros."""
    features = model.options.features
    rows: list[Node] = []
    if features.receive:
        rows.append(node("list-item", "account/tokens/receive", on={"press": PressedNavigate("WalletReceive")},
                         title="Receive funds", subtitle="Transfer tokens on your wallet", icon="receive",
                         chevron=True))
    if features.onramp:
        rows.append(node("list-item", "account/tokens/buy", on={"press": PressedNavigate("OnRamp")},
                         title="Buy Crypto", subtitle="Easy with card or bank account", icon="card", chevron=True))
    return rows
