"""Connecting a browser wallet, and re-syncing it after a page reload (SPEC §4).

Every wallet call is an `eip1193` effect on the connector's provider; its answer comes back as
`EffectSettled` with one of the purposes registered at the bottom.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from ..engine.evolve import replace
from typing import TYPE_CHECKING, Any

from ..chains.catalog import Network
from ..engine.cmds import Cmd, Effect, EffectSettled
from ..engine.msg import Msg
from ..engine.results import EFFECT_HANDLERS, purpose
from ..rules import limits as L
from ..rules.addresses import checksum, is_evm_address
from ..rules.caip import CaipError, validate_evm_chain_id
from ..rules.rpc_errors import classify
from ..wire.frames import AnnouncedWallet
from . import balances, modal, router, siwx
from .accounts import AccountState, WalletInfo
from .connectors import from_wallets, remember_recent
from .options import HostOptions, apply_options
from .networks import activate

if TYPE_CHECKING:
    from ..engine.model import Model, Step

NO_ACCOUNT = "The wallet returned no account"
CONNECT_TIMEOUT_MS = 120_000
RESYNC_TIMEOUT_MS = 10_000
NAMESPACE = "eip155"


@dataclass(frozen=True)
class ConnectionState:
    connecting: str | None = None  # connector id being connected or re-synced
    error: str | None = None  # what ConnectingExternal shows after a failure
    pending_accounts: tuple[str, ...] = ()


@dataclass(frozen=True)
class PressedWallet(Msg):
    connector_id: str


@dataclass(frozen=True)
class PressedRetryConnect(Msg):
    pass


@dataclass(frozen=True)
class Reattached(Msg):
    """A socket attached to an existing session; `reloaded` when the page was loaded anew."""

    wallets: tuple[AnnouncedWallet, ...]
    reloaded: bool
    options: HostOptions | None = None  # the reloaded page's createModal options
    networks: tuple[Network, ...] = ()  # the networks those options name, from the catalog


def wallet_request(model: Model, connector_id: str, method: str, params: object, name: str,
                   param: str = "", timeout_ms: int = CONNECT_TIMEOUT_MS) -> tuple[Model, Effect]:
    connector = model.connectors.get(connector_id)
    ref = connector.ref if connector else connector_id
    model, eid = model.next_id("e")
    effect = Effect(eid=eid, kind="eip1193",
                    req={"connector": ref, "method": method, "params": params},
                    purpose=purpose(name, param or connector_id), timeout_ms=timeout_ms)
    return model, effect


def request_accounts(model: Model, connector_id: str) -> Step:
    model, effect = wallet_request(model, connector_id, "eth_requestAccounts", [], "connect.accounts")
    connection = ConnectionState(connecting=connector_id)
    return replace(model, connection=connection), [effect]


def on_pressed_wallet(model: Model, msg: PressedWallet, now: int) -> Step:
    if model.connectors.get(msg.connector_id) is None:
        return model, []
    model = replace(model, router=router.push(model.router, "ConnectingExternal", msg.connector_id))
    return request_accounts(model, msg.connector_id)


def on_retry(model: Model, msg: PressedRetryConnect, now: int) -> Step:
    connector_id = model.router.param
    if model.router.view != "ConnectingExternal" or model.connectors.get(connector_id) is None:
        return model, []
    return request_accounts(model, connector_id)


def _failed(model: Model, msg: EffectSettled) -> Step:
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


def on_accounts(model: Model, msg: EffectSettled, now: int, connector_id: str) -> Step:
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
    model, effect = wallet_request(model, connector_id, "eth_chainId", [], "connect.chain")
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


def on_chain(model: Model, msg: EffectSettled, now: int, connector_id: str) -> Step:
    if model.connection.connecting != connector_id:
        return model, []
    if not msg.ok:
        return _failed(model, msg)
    chain = _chain_of(msg.result)
    if chain is None:
        return _failed(model, replace(msg, error_code=-32603, error_message="Invalid chainId"))
    return connected(model, connector_id, model.connection.pending_accounts[0], chain, now, fresh=True)


def connected(model: Model, connector_id: str, address: str, chain: str, now: int, *,
              fresh: bool) -> Step:
    """The wallet answered with an account and a chain: the account is connected."""
    from .switching import enter_unsupported_if_needed

    connector = model.connectors.get(connector_id)
    networks = activate(model.networks, chain)
    previous = model.accounts.get(NAMESPACE)
    account = AccountState(
        caip_address=f"{chain}:{address}",
        address=address,
        status="connected",
        balance=previous.balance if previous.address == address else None,
        balance_symbol=previous.balance_symbol if previous.address == address else None,
        token_balance=previous.token_balance if previous.address == address else (),
        current_tab=previous.current_tab,
        connector_id=connector_id,
        connected_wallet_info=WalletInfo(
            name=connector.name if connector else connector_id,
            icon=connector.image_url if connector else "",
            type=connector.type if connector else "",
            identifier=connector.rdns if connector else "",
        ),
        preferred_account_type="eoa",
    )
    model = replace(
        model,
        accounts=model.accounts.with_account(NAMESPACE, account),
        networks=networks,
        connection=ConnectionState(),
        connectors=remember_recent(model.connectors, connector_id) if fresh else model.connectors,
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
    return model, [*cmds, *fetch]


# Other slices that must know about a reattach (e.g. a send whose wallet request a reload lost)
# register a function here; each runs before the re-sync below.
REATTACH_HOOKS: list[Callable[[Model, Reattached, int], Any]] = []


def on_reattached(model: Model, msg: Reattached, now: int) -> Step:
    if msg.reloaded and msg.options is not None:
        model = apply_options(model, msg.options, msg.networks)
    hooked: list[Cmd] = []
    for hook in REATTACH_HOOKS:
        model, more = hook(model, msg, now)
        hooked += more
    model, cmds = _resync(model, msg, now)
    return model, [*hooked, *cmds]


def _resync(model: Model, msg: Reattached, now: int) -> Step:
    """SPEC §4 "On start": connected becomes connecting, re-synced with `eth_accounts`."""
    model = replace(model, connectors=from_wallets(model.connectors.recent, msg.wallets))
    if not msg.reloaded:
        return model, []
    account = model.accounts.get(NAMESPACE)
    if account.status == "disconnected":
        return model, []
    connector_id = account.connector_id
    if connector_id is None or model.connectors.get(connector_id) is None:
        return _resync_lost(model)
    model = replace(
        model,
        accounts=model.accounts.with_account(NAMESPACE, replace(account, status="connecting")),
        connection=ConnectionState(connecting=connector_id),
    )
    model, effect = wallet_request(model, connector_id, "eth_accounts", [], "resync.accounts",
                                   timeout_ms=RESYNC_TIMEOUT_MS)
    return model, [effect]


def _resync_lost(model: Model) -> Step:
    from .disconnect import cleared

    return cleared(model), []


def on_resync_accounts(model: Model, msg: EffectSettled, now: int, connector_id: str) -> Step:
    if model.connection.connecting != connector_id:
        return model, []
    accounts = _valid_accounts(msg.result) if msg.ok else None
    if not accounts:
        return _resync_lost(model)
    model = replace(model, connection=replace(model.connection, pending_accounts=accounts))
    model, effect = wallet_request(model, connector_id, "eth_chainId", [], "resync.chain",
                                   timeout_ms=RESYNC_TIMEOUT_MS)
    return model, [effect]


def on_resync_chain(model: Model, msg: EffectSettled, now: int, connector_id: str) -> Step:
    if model.connection.connecting != connector_id:
        return model, []
    chain = _chain_of(msg.result) if msg.ok else None
    if chain is None:
        return _resync_lost(model)
    previous = model.accounts.get(NAMESPACE).address
    accounts = model.connection.pending_accounts
    address = previous if previous in accounts else accounts[0]
    return connected(model, connector_id, address, chain, now, fresh=False)




EFFECT_HANDLERS.update({
    "connect.accounts": on_accounts,
    "connect.chain": on_chain,
    "resync.accounts": on_resync_accounts,
    "resync.chain": on_resync_chain,
})

HANDLERS = {PressedWallet: on_pressed_wallet, PressedRetryConnect: on_retry, Reattached: on_reattached}
