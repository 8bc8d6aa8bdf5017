"""What the host page's subscribers see (`host_event` frames), derived from the model."""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from typing import Any

from ..i18n import ENGLISH, formats, resolve
from ..rules.embedded import AUTH_CONNECTOR_ID
from ..rules.format import amount_with_symbol
from ..views.parts import truncate_address
from ..slices.model import Model


def _balance(model: Model) -> str:
    """What an account button shows as the balance: '9,998.992 ETH' once known, in the modal's
    language like the amounts in the modal ('9.998,992 ETH' in German), else '' (also on a
    network the host did not request: no balance is known there)."""
    account = model.accounts.get(model.networks.active_namespace)
    if account.status != "connected" or account.balance is None or model.networks.unsupported:
        return ""
    network = model.networks.active_network
    symbol = account.balance_symbol or (network.native.symbol if network else "")
    shown = amount_with_symbol(account.balance, symbol)
    language = resolve(model.options.locale, model.env.languages)
    if language == ENGLISH:
        return shown
    return formats.number(shown, language) or shown


def _state(model: Model) -> dict[str, Any]:
    # One story for the host: the network the wallet is on, even one the host did not request
    # (then `supported` is false and the modal shows UnsupportedChain).
    network = model.networks.unsupported or model.networks.active
    return {
        "open": model.modal.open,
        # in the same event as `open`, so that `open: false, connected: false` says exactly
        # "closed without a connection" (the account event of that update comes after it)
        "connected": model.accounts.get(model.networks.active_namespace).status == "connected",
        "loading": model.modal.loading,
        "view": model.router.view,
        "selectedNetworkId": network or "",
        "activeChain": model.modal.active_chain or "",
        "initialized": model.modal.initialized,
    }


def _account(model: Model) -> dict[str, object] | None:
    if model.smart.switching:
        return None  # the switched account's balance is on its way: one event, with it
    account = model.accounts.get(model.networks.active_namespace)
    data: dict[str, object] = {
        "address": account.address or "",
        "caipAddress": account.caip_address or "",
        "isConnected": account.status == "connected",
        "status": account.status,
        "connector": account.connector_id or "",
        # what an account button shows (ConnectButton / <modalcore-button>): the profile
        # name or the truncated address, the balance, the avatar's image (else a gradient
        # derived from the address)
        "display": account.profile_name or truncate_address(account.address or ""),
        "balance": _balance(model),
        "avatar": account.profile_image or "",
    }
    if account.all_accounts and account.connector_id == AUTH_CONNECTOR_ID:
        # the embedded wallet's account types (behaviour.md §3; issue 32): which one `address` is
        data["preferredAccountType"] = account.preferred_account_type or ""
        data["smartAccountDeployed"] = account.smart_account_deployed
        data["allAccounts"] = [{"address": address, "type": kind} for address, kind in account.all_accounts]
    info = account.connected_wallet_info
    if account.status == "connected" and info is not None:
        # the wallet the account came through (the SDK's useWalletInfo, issue 40): its name,
        # icon (an announced wallet's data URI, a WalletConnect wallet's https URL, or '') and
        # connector type (ANNOUNCED, INJECTED, WALLET_CONNECT, AUTH, ...)
        data["walletInfo"] = {"name": info.name, "icon": info.icon, "type": info.type}
    return data


def _siwx(model: Model) -> dict[str, object]:
    return {
        "enabled": model.siwx.enabled,
        "signedIn": model.siwx.has_session,
        "token": model.siwx.token or "",
    }


def _network(model: Model) -> dict[str, object]:
    network = model.networks.unsupported or model.networks.active
    shown = model.networks.active_network
    return {
        "caipNetworkId": network or "",
        "chainId": network.split(":", 1)[1] if network else "",
        # what a network button shows
        "name": shown.name if shown is not None else "",
        "image": (shown.image_url or "") if shown is not None else "",
        "supported": model.networks.unsupported is None,
        # the networks the host configured, as a network list shows them (the SDK's useNetwork)
        "networks": [{"caipNetworkId": n.id, "name": n.name, "image": n.image_url or ""}
                     for n in model.networks.known],
    }


def _rpc(model: Model) -> dict[str, Any] | None:
    # the answer to the host dApp's last provider request (host intent rpc), once there is one:
    # a session whose host never asked sends no `rpc` event (recorded sessions replay unchanged)
    if model.embedded.host_answer:
        answer: dict[str, object] = json.loads(model.embedded.host_answer)
        return answer
    return None


# The slices the host events read, and per event kind (in the order they are sent) the
# positions in INPUTS of the slices it reads, and how it is derived (None: not sent).
INPUTS = ("modal", "router", "accounts", "networks", "siwx", "embedded", "options", "env", "smart")
KINDS: tuple[tuple[str, tuple[int, ...], Callable[[Model], dict[str, Any] | None]], ...] = (
    ("state", (0, 1, 2, 3), _state),  # accounts: `connected`
    ("account", (2, 3, 6, 7, 8), _account),  # options, env: the language of the balance; smart: a switch
    ("siwx", (4,), _siwx),
    ("network", (3,), _network),
    ("rpc", (5,), _rpc),
)


inputs: Callable[[Model], tuple[object, ...]] = operator.attrgetter(*INPUTS)  # the slices, in INPUTS order


def host_state(model: Model) -> dict[str, dict[str, Any]]:
    events: dict[str, dict[str, object]] = {}
    for kind, _, derive in KINDS:
        data = derive(model)
        if data is not None:
            events[kind] = data
    return events
