"""The connect flow: connecting a browser wallet, then sign-in, network and balances; and
re-syncing it after a page reload (behaviour.md §4). A flow (above the slices) because it spans them.

Every wallet call is an `eip1193` effect on the connector's provider; its answer comes back as
the `EffectReply` messages its wallet requests named.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.evolve import replace
from typing import TYPE_CHECKING

from ..core.cmds import Cmd, EffectReply
from ..core.shape import On, Slice
from ..rules import limits as L
from ..rules.addresses import checksum, is_evm_address
from ..rules.embedded import AUTH_CONNECTOR_ID
from ..rules.caip import CaipError, validate_evm_chain_id
from ..rules.rpc_errors import classify
from ..slices import balances, modal, router, siwx
from ..slices.accounts import AccountState, WalletInfo
from ..slices.connecting import (
    ConnectionState,
    PressedRetryConnect,
    PressedWallet,
    Reattached,
    solana_request,
    wallet_request,
)
from .solana_connect import SolanaAccountsAnswered, request_solana_accounts
from ..slices.connectors import WALLET_CONNECT_ID, from_wallets, remember_recent
from ..slices.options import apply_options
from ..slices.networks import activate
from ..rules.texts import INVALID_CHAIN_ID
from ..slices.disconnect import cleared
from ..slices.switching import enter_unsupported_if_needed, request_switch

if TYPE_CHECKING:
    from ..slices.model import Model, Step

NO_ACCOUNT = "The wallet returned no account"
RESYNC_TIMEOUT_MS = 10_000
NAMESPACE = "eip155"


def request_accounts(model: Model, connector_id: str) -> Step:
    model, effect = wallet_request(model, connector_id, "eth_requestAccounts", [], WalletAccountsAnswered)
    connection = ConnectionState(connecting=connector_id)
    return replace(model, connection=connection), [effect]


def _request(model: Model, connector_id: str) -> Step:
    """eip155 accounts first; a Solana-only wallet is asked for its Solana account."""
    connector = model.connectors.get(connector_id)
    if connector is not None and not connector.supports(NAMESPACE):
        return request_solana_accounts(model, connector_id)
    return request_accounts(model, connector_id)


def on_pressed_wallet(model: Model, msg: PressedWallet, now: int) -> Step:
    connector = model.connectors.get(msg.connector_id)
    if connector is None:
        return model, []
    if connector.type == "WALLET_CONNECT":  # the walletconnect flow pairs once the view is on top
        # on a phone a wallet opens by its deep link: the list to pick it from (AppKit's
        # w3m-connector-list pushes AllWallets there); the QR code is for computers
        view = "AllWallets" if model.env.mobile else "ConnectingWalletConnect"
        return replace(model, router=router.push(model.router, view)), []
    model = replace(model, router=router.push(model.router, "ConnectingExternal", msg.connector_id))
    return _request(model, msg.connector_id)


def on_retry(model: Model, msg: PressedRetryConnect, now: int) -> Step:
    connector_id = model.router.param
    if model.router.view != "ConnectingExternal" or model.connectors.get(connector_id) is None:
        return model, []
    return _request(model, connector_id)


def _failed(model: Model, msg: EffectReply) -> Step:
    error = classify(msg.error_code, msg.error_message)
    text = "Connection declined" if error.user_rejected else (error.message or "Connection failed")
    return replace(model, connection=replace(model.connection, error=text, pending_accounts=())), []


def _valid_accounts(result: object) -> tuple[str, ...] | None:
    """The addresses a wallet answered, checksummed; None unless a list of at most
    MAX_WALLET_ACCOUNTS addresses (the session keeps them until the chain id arrives)."""
    if not isinstance(result, list) or len(result) > L.MAX_WALLET_ACCOUNTS:
        return None
    if not all(isinstance(a, str) and is_evm_address(a) for a in result):
        return None
    return tuple(checksum(a) for a in result)


@dataclass(frozen=True)
class WalletAccountsAnswered(EffectReply):
    """The wallet answered eth_requestAccounts (`key`: the connector id)."""


def on_accounts(model: Model, msg: WalletAccountsAnswered, now: int) -> Step:
    connector_id = msg.key
    if model.connection.connecting != connector_id:
        return model, []
    if not msg.ok:
        return _failed(model, msg)
    accounts = _valid_accounts(msg.result)
    if not accounts:
        many = isinstance(msg.result, list) and len(msg.result) > L.MAX_WALLET_ACCOUNTS
        reason = f"The wallet returned more than {L.MAX_WALLET_ACCOUNTS} accounts" if many else NO_ACCOUNT
        return _failed(model, replace(msg, error_code=-32603, error_message=reason))
    model = replace(model, connection=replace(model.connection, pending_accounts=accounts))
    model, effect = wallet_request(model, connector_id, "eth_chainId", [], WalletChainAnswered)
    return model, [effect]


def _chain_of(result: object) -> str | None:
    try:
        if isinstance(result, str):
            return f"{NAMESPACE}:{validate_evm_chain_id(int(result, 16))}"
        if isinstance(result, int):
            return f"{NAMESPACE}:{validate_evm_chain_id(result)}"
    except (ValueError, CaipError):
        return None
    return None


@dataclass(frozen=True)
class WalletChainAnswered(EffectReply):
    """The wallet answered eth_chainId while connecting (`key`: the connector id)."""


def on_chain(model: Model, msg: WalletChainAnswered, now: int) -> Step:
    connector_id = msg.key
    if model.connection.connecting != connector_id:
        return model, []
    if not msg.ok:
        return _failed(model, msg)
    chain = _chain_of(msg.result)
    if chain is None:
        return _failed(model, replace(msg, error_code=-32603, error_message=INVALID_CHAIN_ID))
    return connected(model, connector_id, model.connection.pending_accounts[0], chain, now, fresh=True)


def connected(model: Model, connector_id: str, address: str, chain: str, now: int, *,
              fresh: bool, info: WalletInfo | None = None, user_email: str | None = None) -> Step:
    """The wallet answered with an account and a chain: the account is connected. `info` names a
    wallet that is no announced connector (the embedded wallet), `user_email` its user."""
    connector = model.connectors.get(connector_id)
    chosen = model.networks.chosen
    networks = replace(activate(model.networks, chain), chosen=None)
    previous = model.accounts.get(NAMESPACE)
    if info is None and not fresh and previous.connector_id == connector_id:
        # a re-sync after a reload keeps the wallet the session knows: a WalletConnect wallet's
        # name and the deep link its phone opens it by are in no connector (issue 39 item 6)
        info = previous.connected_wallet_info
    account = AccountState(
        caip_address=f"{chain}:{address}",
        address=address,
        status="connected",
        balance=previous.balance if previous.address == address else None,
        balance_symbol=previous.balance_symbol if previous.address == address else None,
        token_balance=previous.token_balance if previous.address == address else (),
        current_tab=previous.current_tab,
        connector_id=connector_id,
        connected_wallet_info=info or WalletInfo(
            name=connector.name if connector else connector_id,
            icon=connector.image_url if connector else "",
            type=connector.type if connector else "",
            identifier=connector.rdns if connector else "",
        ),
        preferred_account_type="eoa",
        user_email=user_email,
    )
    model = replace(
        model,
        accounts=model.accounts.with_account(NAMESPACE, account),
        networks=networks,
        connection=ConnectionState(),
        connectors=remember_recent(model.connectors, connector_id) if fresh and connector else model.connectors,
        modal=replace(model.modal, selected_network_id=networks.unsupported or networks.active,
                      active_chain=NAMESPACE),
    )
    cmds: list[Cmd] = []
    signing_in = model.siwx.enabled and model.networks.unsupported is None
    if fresh and not signing_in:
        model = replace(model, router=router.reset(model.router, "Account"))
        model, cmds = modal.close(model, force=True)
    model, more = enter_unsupported_if_needed(model)
    cmds += more
    model, more = siwx.check_sessions(model)
    cmds += more
    model, fetch = balances.fetch(model, now)
    cmds += fetch
    if fresh and connector is not None and connector.supports("solana"):
        model, effect = solana_request(model, connector_id, "standard:connect", {}, SolanaAccountsAnswered)
        cmds.append(effect)  # a wallet of both namespaces connects its Solana account too
    if fresh and _wants_switch(model, connector_id, chosen, chain):
        # the network chosen before connecting is where the visitor meant to be: the wallet
        # is asked to switch at once (issue 39 item 7; AppKit connects with the active chain)
        model, more = request_switch(model, chosen or "")
        cmds += more
    return model, cmds


def _wants_switch(model: Model, connector_id: str, chosen: str | None, chain: str) -> bool:
    return (chosen is not None and chosen != chain and chosen.startswith(f"{NAMESPACE}:")
            and connector_id != AUTH_CONNECTOR_ID and model.networks.is_requested(chosen))


def with_reattach_options(model: Model, msg: Reattached) -> Model:
    """After a reload the page's options (and the operator's networks) apply again."""
    if msg.reloaded and msg.options is not None:
        return apply_options(model, msg.options, msg.networks)
    return model


def resync(model: Model, msg: Reattached, now: int) -> Step:
    """behaviour.md §4 "On start": connected becomes connecting, re-synced with `eth_accounts`."""
    model = replace(model, connectors=from_wallets(model.connectors.recent, msg.wallets,
                                                   walletconnect=model.connectors.get(WALLET_CONNECT_ID) is not None))
    account = model.accounts.get(NAMESPACE)
    # a WalletConnect session lives in the engine: after a reconnect (an engine restart) too,
    # it is read back and re-synced, not only after a page reload
    walletconnect = account.connector_id == WALLET_CONNECT_ID
    if not msg.reloaded and not walletconnect:
        return model, []
    if account.status == "disconnected":
        return model, []
    connector_id = account.connector_id
    if connector_id == AUTH_CONNECTOR_ID and model.embedded.identity:
        # the engine holds the embedded wallet's key: the page has nothing to answer; the
        # balances are fetched again as for any reload
        return balances.fetch(model, now, force=True)
    if connector_id is None or model.connectors.get(connector_id) is None:
        return _resync_lost(model)
    model = replace(
        model,
        accounts=model.accounts.with_account(NAMESPACE, replace(account, status="connecting")),
        connection=ConnectionState(connecting=connector_id),
    )
    model, effect = wallet_request(model, connector_id, "eth_accounts", [], ResyncAccountsAnswered,
                                   timeout_ms=RESYNC_TIMEOUT_MS)
    return model, [effect]


def _resync_lost(model: Model) -> Step:
    return cleared(model), []


@dataclass(frozen=True)
class ResyncAccountsAnswered(EffectReply):
    """The wallet answered eth_accounts after a reload (`key`: the connector id)."""


def on_resync_accounts(model: Model, msg: ResyncAccountsAnswered, now: int) -> Step:
    connector_id = msg.key
    if model.connection.connecting != connector_id:
        return model, []
    accounts = _valid_accounts(msg.result) if msg.ok else None
    if not accounts:
        return _resync_lost(model)
    model = replace(model, connection=replace(model.connection, pending_accounts=accounts))
    model, effect = wallet_request(model, connector_id, "eth_chainId", [], ResyncChainAnswered,
                                   timeout_ms=RESYNC_TIMEOUT_MS)
    return model, [effect]


@dataclass(frozen=True)
class ResyncChainAnswered(EffectReply):
    """The wallet answered eth_chainId after a reload (`key`: the connector id)."""


def on_resync_chain(model: Model, msg: ResyncChainAnswered, now: int) -> Step:
    connector_id = msg.key
    if model.connection.connecting != connector_id:
        return model, []
    chain = _chain_of(msg.result) if msg.ok else None
    if chain is None:
        return _resync_lost(model)
    previous = model.accounts.get(NAMESPACE).address
    accounts = model.connection.pending_accounts
    address = previous if previous in accounts else accounts[0]
    return connected(model, connector_id, address, chain, now, fresh=False)





HANDLERS = (
    On(ResyncChainAnswered, on_resync_chain),
    On(ResyncAccountsAnswered, on_resync_accounts),
    On(WalletChainAnswered, on_chain),
    On(WalletAccountsAnswered, on_accounts),
    On(PressedWallet, on_pressed_wallet),
    On(PressedRetryConnect, on_retry),
)

SLICE = Slice("connection", HANDLERS)
