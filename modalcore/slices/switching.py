"""Switching networks, and following the wallet when it changes chain or account (behaviour.md §4)."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING

from ..chains.catalog import Network
from ..core.cmds import EffectReply
from ..core.msg import Msg
from ..core.shape import On, Slice
from ..rules.addresses import checksum, is_evm_address
from ..rules.caip import CaipError, parse_caip2, validate_evm_chain_id
from ..rules.rpc_errors import classify
from . import balances, modal, router, siwx, snack, stack
from .host import HostSwitchedNetwork
from .networks import activate
from .send_form import reset_send
from .wallet_events import WalletAccountsChanged, WalletChainChanged, WalletDisconnected
from ..rules import texts
from .connecting import wallet_request
from .disconnect import cleared

if TYPE_CHECKING:
    from .model import Model, Step

UNRECOGNIZED_CHAIN = 4902


@dataclass(frozen=True)
class SwitchState:
    target: str | None = None  # CAIP-2 id the wallet is being asked to switch to


@dataclass(frozen=True)
class PressedNetwork(Msg):
    network: str


def _connected_connector(model: Model) -> str | None:
    account = model.accounts.get("eip155")
    return account.connector_id if account.status == "connected" else None


def request_switch(model: Model, network_id: str) -> Step:
    try:
        parse_caip2(network_id)
    except CaipError:
        return model, []
    network = model.networks.get(network_id)
    if network is None:
        return snack.show_error(model, "Switch network not found")
    if network_id == model.networks.active and model.networks.unsupported is None:
        return _after_switch(model)
    connector_id = _connected_connector(model)
    if connector_id is None or network.namespace != "eip155":
        if model.accounts.get(network.namespace).status == "disconnected":
            model = replace(model, networks=replace(model.networks, chosen=network_id))
        return _switched(model, network_id, 0)
    model, effect = wallet_request(
        model, connector_id, "wallet_switchEthereumChain", [{"chainId": network.chain_id_hex}],
        ChainSwitchAnswered, network_id,
    )
    return replace(model, switching=SwitchState(target=network_id)), [effect]


def _add_chain_params(network: Network) -> list[dict[str, object]]:
    return [{
        "chainId": network.chain_id_hex,
        "rpcUrls": list(network.rpc_urls),
        "chainName": network.name,
        "nativeCurrency": {"name": network.native.name, "symbol": network.native.symbol,
                           "decimals": network.native.decimals},
        "blockExplorerUrls": [network.explorer_url] if network.explorer_url else [],
    }]


@dataclass(frozen=True)
class ChainSwitchAnswered(EffectReply):
    """The wallet answered wallet_switchEthereumChain (`key`: the network id)."""


def on_switch_settled(model: Model, msg: ChainSwitchAnswered, now: int) -> Step:
    network_id = msg.key
    if model.switching.target != network_id:
        return model, []
    if msg.ok:
        return _switched(model, network_id, now)
    network = model.networks.get(network_id)
    if msg.error_code == UNRECOGNIZED_CHAIN and network is not None:
        connector_id = _connected_connector(model)
        if connector_id is not None:
            model, effect = wallet_request(
                model, connector_id, "wallet_addEthereumChain", _add_chain_params(network),
                ChainAddAnswered, network_id,
            )
            return model, [effect]
    model = replace(model, switching=SwitchState())
    return snack.show_error(model, classify(msg.error_code, msg.error_message).message)


@dataclass(frozen=True)
class ChainAddAnswered(EffectReply):
    """The wallet answered wallet_addEthereumChain (`key`: the network id)."""


def on_add_settled(model: Model, msg: ChainAddAnswered, now: int) -> Step:
    network_id = msg.key
    if model.switching.target != network_id:
        return model, []
    if msg.ok:
        return _switched(model, network_id, now)
    model = replace(model, switching=SwitchState())
    return snack.show_error(model, texts.CHAIN_NOT_SUPPORTED)


def _switched(model: Model, network_id: str, now: int) -> Step:
    """The active network changed: address recomputed, send form reset, balances fetched."""
    networks = activate(model.networks, network_id)
    namespace = network_id.split(":", 1)[0]  # the active namespace follows the network
    account = model.accounts.get(namespace)
    accounts = model.accounts
    if account.address:  # the address recomputed for the network (behaviour.md §4)
        accounts = accounts.with_account(namespace, replace(
            account, caip_address=f"{network_id}:{account.address}", balance=None, token_balance=()))
    model = replace(
        model, networks=networks, accounts=accounts, switching=SwitchState(),
        modal=replace(model.modal, selected_network_id=network_id, active_chain=networks.active_namespace),
    )
    model = reset_send(model)
    model, cmds = enter_unsupported_if_needed(model)
    if networks.unsupported is None:
        model, more = _after_switch(model)
        cmds += more
        if account.status != "connected" and _connected_elsewhere(model, namespace) and model.modal.open:
            # another namespace's network with no account there yet: connect a wallet for it
            model = replace(model, router=router.reset(model.router, "Connect"))
    model, fetch = balances.fetch(model, now, force=True)
    return model, [*cmds, *fetch]


def _connected_elsewhere(model: Model, namespace: str) -> bool:
    return any(ns != namespace and acc.status == "connected" for ns, acc in model.accounts.by_namespace)


def _after_switch(model: Model) -> Step:
    """Leaving UnsupportedChain or Networks after a successful switch."""
    if model.router.contains("UnsupportedChain"):
        model = replace(model, router=router.reset(model.router, "Account"))
        return modal.close(model, force=True)
    if model.router.view == "Networks":
        return stack.go_back(model)
    return model, []


def enter_unsupported_if_needed(model: Model) -> Step:
    """UnsupportedChain opens when the wallet is on a network the host did not request,
    network switching is on, unsupported chains are not allowed and the connection is not basic."""
    if not modal.blocked_by_unsupported_chain(model):
        return model, []
    routed = router.push(model.router, "UnsupportedChain") if model.modal.open else router.reset(
        model.router, "UnsupportedChain")
    return replace(model, router=routed, modal=replace(model.modal, open=True)), []


def on_pressed_network(model: Model, msg: PressedNetwork | HostSwitchedNetwork, now: int) -> Step:
    return request_switch(model, msg.network)


def on_chain_changed(model: Model, msg: WalletChainChanged, now: int) -> Step:
    account = model.accounts.get("eip155")
    connector = model.connectors.get(account.connector_id)
    if account.status != "connected" or connector is None or connector.ref != msg.connector:
        return model, []
    try:
        chain_id = validate_evm_chain_id(int(msg.chain_id, 16))
    except (ValueError, CaipError):
        return model, []
    if model.networks.active_namespace != "eip155":
        # the visitor is on a Solana network: the EVM wallet's chain is noted, not activated
        moved = replace(account, caip_address=f"eip155:{chain_id}:{account.address}")
        return replace(model, accounts=model.accounts.with_account("eip155", moved)), []
    return _switched(model, f"eip155:{chain_id}", now)


def on_accounts_changed(model: Model, msg: WalletAccountsChanged, now: int) -> Step:
    account = model.accounts.get("eip155")
    connector = model.connectors.get(account.connector_id)
    if account.status != "connected" or connector is None or connector.ref != msg.connector:
        return model, []
    addresses = [checksum(a) for a in msg.accounts if is_evm_address(a)]
    if not addresses:
        return _wallet_let_go(model), []
    if addresses[0] == account.address:
        return model, []
    network = model.networks.unsupported or model.networks.active or "eip155:1"
    if not network.startswith("eip155:"):  # on a Solana network: keep the account's EVM chain
        network = (account.caip_address or "eip155:1:").rsplit(":", 1)[0]
    updated = replace(account, address=addresses[0], caip_address=f"{network}:{addresses[0]}",
                      balance=None, token_balance=())
    model = replace(model, accounts=model.accounts.with_account("eip155", updated))
    model, cmds = siwx.check_sessions(model)
    model, more = balances.fetch(model, now, force=True)
    return model, [*cmds, *more]


def on_wallet_disconnected(model: Model, msg: WalletDisconnected, now: int) -> Step:
    account = model.accounts.get("eip155")
    connector = model.connectors.get(account.connector_id)
    if connector is None or connector.ref != msg.connector:
        return model, []
    return _wallet_let_go(model), []


def _wallet_let_go(model: Model) -> Model:
    """The wallet dropped the account. During a disconnect the visitor pressed, wallets (the Dev
    Wallet, MetaMask) say so before they answer wallet_revokePermissions: the disconnect stays
    pending, so its answer still ends it as every disconnect ends (the modal closes) instead of
    leaving the modal open on Connect."""
    return replace(cleared(model), router=router.reset(model.router, "Connect"), disconnecting=model.disconnecting)


HANDLERS = (
    On(ChainAddAnswered, on_add_settled),
    On(ChainSwitchAnswered, on_switch_settled),
    On(PressedNetwork, on_pressed_network),
    On(HostSwitchedNetwork, on_pressed_network),
    On(WalletChainChanged, on_chain_changed),
    On(WalletAccountsChanged, on_accounts_changed),
    On(WalletDisconnected, on_wallet_disconnected),
)

SLICE = Slice("switching", HANDLERS)
