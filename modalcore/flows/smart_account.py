"""The embedded sign-in's account on each chain (issue 32): its smart account where the operator
runs them, else its EOA (state and rules: slices/smart_account.py).

- A verified email or social sign-in (`connect_embedded`) first reads its smart accounts on the
  session's smart-account chains (`embedded.smart_accounts`: counterfactual address and code at
  it), then connects with the account it shows: the host's first account event already names the
  smart account. A read that fails connects the EOA (the chains it could not read have none).
- Account's switch flips `preferred` and moves the shown account (address, `allAccounts`,
  `smartAccountDeployed`, `preferredAccountType`), as a wallet's accountsChanged does: the
  balances and a sign-in session follow the new address, the send form starts over.
- A network change shows that chain's account (the EOA where it has no smart account).
- A send from the smart account deploys it: once the embedded wallet answered one, its code is
  read again (`smartAccountDeployed` tells what the chain says), as after a page reload.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.cmds import CancelTimer, Cmd, StartTimer
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import embedded as rules
from ..rules.addresses import checksum
from ..slices import balances, siwx
from ..slices.accounts import AccountState, WalletInfo
from ..slices.send_form import reset_send
from ..slices.smart_account import (
    EOA,
    SERVICE,
    SMART_ACCOUNT,
    PendingSignIn,
    PressedSwitchAccountType,
    SmartAccount,
    SmartAccountsRead,
    SmartAccountsState,
    SwitchSettled,
    enabled_chains,
    shown_address,
    shown_type,
    smart_account_of,
)
from .connect import NAMESPACE, connected

if TYPE_CHECKING:
    from ..slices.model import Model, Step

SENDS = ("eth_sendTransaction",)  # what deploys a smart account (wallet_sendCalls: flows/calls.py follows it)
SWITCH_TIMER = "smart-switch"
SWITCH_HOLD_MS = 1500  # the longest the host's account event waits for a switched account's balance


def read(model: Model, chains: tuple[str, ...]) -> Cmd:
    return SERVICE.call_or_refusal({"identity": model.embedded.identity, "chains": list(chains)}, SmartAccountsRead,
                                   key=model.smart.owner)


def connect_embedded(model: Model, owner: str, chain: str, now: int, *, user_email: str = "",
                     provider: str = "", username: str = "", image: str = "") -> Step:
    """A verified embedded sign-in (`owner`: its key's address; `model.embedded.identity` set)."""
    pending = PendingSignIn(owner, chain, user_email, provider, username, image)
    chains = enabled_chains(model)
    model = replace(model, smart=SmartAccountsState(owner=owner, preferred=model.smart.preferred,
                                                    pending=pending if chains else None))
    if not chains:
        return _finish(model, pending, now)
    return model, [read(model, chains)]


def _finish(model: Model, pending: PendingSignIn, now: int) -> Step:
    info = WalletInfo(name=rules.AUTH_CONNECTOR_NAME, type="AUTH", identifier=rules.AUTH_CONNECTOR_ID,
                      social=pending.provider)
    model = replace(model, smart=replace(model.smart, pending=None))
    address = shown_address(model, pending.chain)
    model, cmds = connected(model, rules.AUTH_CONNECTOR_ID, address, pending.chain, now, fresh=True, info=info,
                            user_email=pending.user_email or None)
    account = model.accounts.get(NAMESPACE)
    if pending.provider:
        account = replace(account, social_provider=pending.provider, user_name=pending.username or None,
                          profile_image=pending.image or None)
    model = replace(model, accounts=model.accounts.with_account(NAMESPACE, _typed(model, account)))
    return model, cmds


def account_chain(account: AccountState) -> str:
    return (account.caip_address or "").rsplit(":", 1)[0]


def _typed(model: Model, account: AccountState) -> AccountState:
    """The account-type fields (behaviour.md §3) of the embedded account on its chain."""
    chain = account_chain(account)
    smart = smart_account_of(model, chain)
    everything = ((smart.address, SMART_ACCOUNT),) if smart is not None else ()
    return replace(account, all_accounts=(*everything, (model.smart.owner, EOA)),
                   smart_account_deployed=smart is not None and smart.deployed,
                   preferred_account_type=shown_type(model, chain))


def embedded_account(model: Model) -> AccountState | None:
    account = model.accounts.get(NAMESPACE)
    if account.connector_id != rules.AUTH_CONNECTOR_ID or account.status == "disconnected" or not model.smart.owner:
        return None
    return account


def align(model: Model, now: int) -> Step:
    """The embedded account shows what its type says on its chain; a new address is taken up as a
    wallet's accountsChanged is (balances, sign-in session)."""
    account = embedded_account(model)
    if account is None:
        return model, []
    chain = account_chain(account)
    address = shown_address(model, chain)
    if address == account.address:
        typed = _typed(model, account)
        if typed == account:
            return model, []
        return replace(model, accounts=model.accounts.with_account(NAMESPACE, typed)), []
    moved = _typed(model, replace(account, address=address, caip_address=f"{chain}:{address}", balance=None,
                                  balance_symbol=None, token_balance=(), profile_name=None, profile_image=None))
    model = reset_send(replace(model, accounts=model.accounts.with_account(NAMESPACE, moved)))
    model, cmds = siwx.check_sessions(model)
    model, more = balances.fetch(model, now, force=True)
    return model, [*cmds, *more]


def on_read(model: Model, msg: SmartAccountsRead, now: int) -> Step:
    state = model.smart
    if not state.owner or msg.key != state.owner:
        return model, []
    asked = enabled_chains(model)
    if msg.ok and msg.result is not None and msg.result.owner.lower() == state.owner.lower():
        read = {a.chain: SmartAccount(a.chain, checksum(a.address), a.deployed)
                for a in msg.result.accounts if a.chain in asked}
        kept = tuple(a for a in state.accounts if a.chain not in read)
        model = replace(model, smart=replace(state, accounts=(*kept, *read.values())))
    if state.pending is not None:
        return _finish(model, state.pending, now)
    return align(model, now)


def on_switch(model: Model, msg: PressedSwitchAccountType, now: int) -> Step:
    account = embedded_account(model)
    if account is None or smart_account_of(model, account_chain(account)) is None:
        return model, []  # AppKit: offered only to the auth connector on a smart-account network
    preferred = EOA if model.smart.preferred == SMART_ACCOUNT else SMART_ACCOUNT
    model, cmds = align(replace(model, smart=replace(model.smart, preferred=preferred)), now)
    if not model.balances.loading:
        return model, cmds  # the balance is known at once (a testnet's zero): one event already
    # the host hears of the new account once, with its balance (not with "" and again 30 ms later)
    model = replace(model, smart=replace(model.smart, switching=True))
    return model, [*cmds, StartTimer(SWITCH_TIMER, SWITCH_HOLD_MS, SwitchSettled())]


def on_switch_settled(model: Model, msg: SwitchSettled, now: int) -> Step:
    return replace(model, smart=replace(model.smart, switching=False)), []


def _sent_from_undeployed(before: Model, after: Model) -> str | None:
    """The chain of an undeployed smart account whose send the embedded wallet just answered."""
    request = before.embedded.request
    if request is None or request.method not in SENDS or after.embedded.request is not None:
        return None
    smart = smart_account_of(after, request.chain)
    return request.chain if smart is not None and not smart.deployed else None


def on_reattached(model: Model, msg: Any, now: int) -> Step:
    """After a reload the embedded account's smart accounts are read again (whether deployed is
    the chain's word, not the session's memory). (`msg` is connecting.Reattached.)"""
    cmds: list[Cmd] = []
    if model.smart.switching:  # a page (re)joining hears its account at once
        model = replace(model, smart=replace(model.smart, switching=False))
        cmds.append(CancelTimer(SWITCH_TIMER))
    chains = enabled_chains(model)
    if not msg.reloaded or embedded_account(model) is None or not chains:
        return model, cmds
    return model, [*cmds, read(model, chains)]


def observe(before: Model, after: Model, now: int) -> Step:
    cmds: list[Cmd] = []
    if after.smart.switching and (not after.balances.loading or embedded_account(after) is None):
        after = replace(after, smart=replace(after.smart, switching=False))  # the balance came
        cmds.append(CancelTimer(SWITCH_TIMER))
    if embedded_account(after) is None:
        return after, cmds
    chain = _sent_from_undeployed(before, after)
    if chain is not None:
        cmds.append(read(after, (chain,)))
    if before.accounts.get(NAMESPACE).caip_address != after.accounts.get(NAMESPACE).caip_address:
        after, more = align(after, now)  # a network change: that chain's account
        cmds += more
    return after, cmds


HANDLERS = (
    On(SmartAccountsRead, on_read),
    On(PressedSwitchAccountType, on_switch),
    On(SwitchSettled, on_switch_settled),
)

SLICE = Slice("smart_account", HANDLERS, observe=observe)
