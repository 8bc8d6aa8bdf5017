"""Connecting a Solana wallet (a Wallet Standard wallet the bridge announced with the `solana`
namespace): `standard:connect`, then the account joins the `solana` namespace (behaviour.md §3: its
default account type is eoa) on the Solana network the host asked for, and its balances are
fetched. A wallet that supports both namespaces connects both: its eip155 account first
(flows/connect.py), then this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.cmds import Cmd, EffectReply
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import limits as L
from ..rules import texts
from ..rules.addresses import is_solana_wallet_address
from ..rules.rpc_errors import classify
from ..slices import balances, modal, router, siwx
from ..slices.accounts import AccountState, WalletInfo
from ..slices.connecting import ConnectionState, Reattached, solana_request
from ..slices.connectors import remember_recent
from ..slices.networks import activate

if TYPE_CHECKING:
    from ..slices.model import Model, Step

NAMESPACE = "solana"
NO_ACCOUNT = "The wallet returned no account"


def solana_network(model: Model) -> str | None:
    """The Solana network an account connects on: the active one when it is Solana, else the
    first Solana network the host asked for."""
    active = model.networks.active
    if active is not None and active.startswith(f"{NAMESPACE}:"):
        return active
    return next((n.id for n in model.networks.known if n.namespace == NAMESPACE), None)


def request_solana_accounts(model: Model, connector_id: str) -> Step:
    model, effect = solana_request(model, connector_id, "standard:connect", {}, SolanaAccountsAnswered)
    return replace(model, connection=ConnectionState(connecting=connector_id)), [effect]


@dataclass(frozen=True)
class SolanaAccountsAnswered(EffectReply):
    """The wallet answered standard:connect (`key`: the connector id)."""


def _accounts(result: object) -> tuple[str, ...] | None:
    if not isinstance(result, list) or not result or len(result) > L.MAX_WALLET_ACCOUNTS:
        return None
    if not all(isinstance(a, str) and is_solana_wallet_address(a) for a in result):
        return None
    return tuple(result)


def _failed(model: Model, msg: EffectReply, reason: str | None = None) -> Step:
    if reason is None:
        error = classify(msg.error_code, msg.error_message)
        reason = "Connection declined" if error.user_rejected else (error.message or "Connection failed")
    return replace(model, connection=replace(model.connection, connecting=model.connection.connecting,
                                             error=reason, pending_accounts=())), []


def on_solana_accounts(model: Model, msg: SolanaAccountsAnswered, now: int) -> Step:
    connector_id = msg.key
    connector = model.connectors.get(connector_id)
    alongside = model.accounts.get("eip155").connector_id == connector_id  # a both-namespace wallet
    if connector is None or not connector.supports(NAMESPACE):
        return model, []
    if model.connection.connecting != connector_id and not alongside:
        return model, []
    if not msg.ok:
        return (model, []) if alongside else _failed(model, msg)
    accounts = _accounts(msg.result)
    network = solana_network(model)
    if accounts is None or network is None:
        if alongside:
            return model, []
        return _failed(model, msg, NO_ACCOUNT if network else texts.UNSUPPORTED_CHAIN)
    return connected_solana(model, connector_id, accounts[0], network, now,
                            fresh=not alongside, activate_network=not alongside)


def connected_solana(model: Model, connector_id: str, address: str, network: str, now: int, *,
                     fresh: bool, activate_network: bool = True) -> Step:
    connector = model.connectors.get(connector_id)
    previous = model.accounts.get(NAMESPACE)
    same = previous.address == address
    account = AccountState(
        caip_address=f"{network}:{address}",
        address=address,
        status="connected",
        balance=previous.balance if same else None,
        balance_symbol=previous.balance_symbol if same else None,
        token_balance=previous.token_balance if same else (),
        current_tab=previous.current_tab,
        connector_id=connector_id,
        connected_wallet_info=WalletInfo(
            name=connector.name if connector else connector_id,
            icon=connector.image_url if connector else "",
            type=connector.type if connector else "",
            identifier=connector.rdns if connector else "",
        ),
        preferred_account_type="eoa",  # behaviour.md §3: solana defaults to eoa
        all_accounts=((address, "eoa"),),
    )
    model = replace(model, accounts=model.accounts.with_account(NAMESPACE, account),
                    connection=ConnectionState())
    if fresh:
        model = replace(model, connectors=remember_recent(model.connectors, connector_id))
    if not activate_network:
        return model, []
    networks = activate(model.networks, network)
    model = replace(model, networks=networks, modal=replace(
        model.modal, selected_network_id=networks.active, active_chain=NAMESPACE))
    cmds: list[Cmd] = []
    signing_in = model.siwx.enabled
    if fresh and not signing_in:
        model = replace(model, router=router.reset(model.router, "Account"))
        model, cmds = modal.close(model, force=True)
    model, more = siwx.check_sessions(model)
    cmds += more
    model, fetch = balances.fetch(model, now)
    return model, [*cmds, *fetch]


RESYNC_TIMEOUT_MS = 10_000


def resync_solana(model: Model, msg: Reattached, now: int) -> Step:
    """After a reload a connected Solana account is asked for again, silently
    (`standard:connect` with `silent`: no prompt); the wallet must still grant that address."""
    account = model.accounts.get(NAMESPACE)
    if not msg.reloaded or account.status == "disconnected":
        return model, []
    connector_id = account.connector_id
    if connector_id is None or model.connectors.get(connector_id) is None:
        return replace(model, accounts=model.accounts.cleared(NAMESPACE)), []
    model = replace(model, accounts=model.accounts.with_account(NAMESPACE, replace(account, status="connecting")))
    model, effect = solana_request(model, connector_id, "standard:connect", {"silent": True},
                                   SolanaResyncAnswered, timeout_ms=RESYNC_TIMEOUT_MS)
    return model, [effect]


@dataclass(frozen=True)
class SolanaResyncAnswered(EffectReply):
    """The wallet answered the silent standard:connect after a reload (`key`: the connector id)."""


def on_resync(model: Model, msg: SolanaResyncAnswered, now: int) -> Step:
    account = model.accounts.get(NAMESPACE)
    if account.status != "connecting" or account.connector_id != msg.key:
        return model, []
    accounts = _accounts(msg.result) if msg.ok else None
    if not accounts or account.address not in accounts:
        return replace(model, accounts=model.accounts.cleared(NAMESPACE)), []
    model = replace(model, accounts=model.accounts.with_account(NAMESPACE, replace(account, status="connected")))
    if model.networks.active_namespace != NAMESPACE:
        return model, []
    return balances.fetch(model, now)


HANDLERS = (On(SolanaAccountsAnswered, on_solana_accounts), On(SolanaResyncAnswered, on_resync))

SLICE = Slice("solana_connection", HANDLERS)
