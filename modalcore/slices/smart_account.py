"""The embedded wallet's account types (issue 32; behaviour.md §3 `preferredAccountTypes`,
`smartAccountDeployed`, `allAccounts`): which address an email or social sign-in shows on each
eip155 chain.

An embedded sign-in owns one key (the engine-held EOA, `owner`). On a chain whose operator runs
ERC-4337 (`Network.smart_accounts`) that key also owns a counterfactual smart account; the engine
reads its address and whether it is deployed (`embedded.smart_accounts`) before the sign-in
connects, so the host never sees the EOA first. The account shown is the smart account when
`preferred` is `smartAccount` (behaviour.md §3: the eip155 default) and the chain has one, else the EOA.
The visitor switches in Account ('Switch to your EOA' / 'Switch to your Smart Account', AppKit's
w3m-smart-account-settings-view); the choice lives in the session (kept across reloads, and
across a disconnect, as AppKit keeps `preferredAccountTypes` in local storage).

Other modules ask `smart_account_of(model, chain)` (the smart account of the active sign-in on a
chain, or None) and `shown_type(model, chain)`; the cross-slice work (connecting, switching,
re-aligning the account on a network change) is flows/smart_account.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.cmds import Reply
from ..core.msg import Msg
from ..services.domain.handles import MAX_SMART_ACCOUNT_CHAINS, SMART_ACCOUNTS

if TYPE_CHECKING:
    from .model import Model

AccountType = Literal["smartAccount", "eoa"]
SMART_ACCOUNT: AccountType = "smartAccount"
EOA: AccountType = "eoa"
SERVICE = SMART_ACCOUNTS
MAX_CHAINS = MAX_SMART_ACCOUNT_CHAINS  # a session's known networks are bounded well below this (limits.MAX_NETWORKS)

# AppKit's w3m-smart-account-settings-view labels
SWITCH_TO_EOA = "Switch to your EOA"
SWITCH_TO_SMART = "Switch to your Smart Account"
SPONSORED_FEE = "Sponsored"  # the network fee row when the paymaster pays it


@dataclass(frozen=True)
class SmartAccount:
    chain: str  # CAIP-2
    address: str  # checksummed
    deployed: bool = False  # code at the address (read from the chain)


@dataclass(frozen=True)
class PendingSignIn:
    """A verified embedded sign-in waiting for its smart accounts to be read before it connects."""

    owner: str
    chain: str
    user_email: str = ""
    provider: str = ""  # a social sign-in's provider ("" for email)
    username: str = ""
    image: str = ""  # Farcaster's profile picture


@dataclass(frozen=True)
class SmartAccountsState:
    owner: str = ""  # the embedded key's address (the EOA), once signed in
    accounts: tuple[SmartAccount, ...] = ()  # per chain with smart accounts, as last read
    preferred: AccountType = SMART_ACCOUNT  # behaviour.md §3: eip155 defaults to smartAccount
    pending: PendingSignIn | None = None
    # Account's switch moved the shown account and its balance is being read: the host's
    # account event waits for it (one event per switch, with the new account's balance), at
    # most SWITCH_HOLD_MS (flows/smart_account.py)
    switching: bool = False


def smart_account_of(model: Model, chain: str | None) -> SmartAccount | None:
    """The signed-in embedded key's smart account on `chain` (CAIP-2), None when the chain has
    none (not configured for smart accounts, not read, or no embedded sign-in)."""
    if not chain or not model.smart.owner:
        return None
    for account in model.smart.accounts:
        if account.chain == chain:
            return account
    return None


def shown_type(model: Model, chain: str | None) -> AccountType:
    """The account type the embedded sign-in shows on `chain`: the preferred one where it exists."""
    if model.smart.preferred == SMART_ACCOUNT and smart_account_of(model, chain) is not None:
        return SMART_ACCOUNT
    return EOA


def shown_address(model: Model, chain: str | None) -> str:
    account = smart_account_of(model, chain)
    if account is not None and model.smart.preferred == SMART_ACCOUNT:
        return account.address
    return model.smart.owner


def fee_sponsored(model: Model) -> bool:
    """The paymaster will pay the network fee of a send from the account shown on the active chain:
    it is the smart account and the operator's policy sponsors this project's eth_sendTransaction
    there. A day's budget already spent cannot be known before sending (aa/ledger.py counts it
    when the operation goes); such a send then follows `when_budget_spent` (refused, or the
    account pays)."""
    network = model.networks.active_network
    if network is None or network.namespace != "eip155" or model.project_id not in network.sponsored_send_projects:
        return False
    account = smart_account_of(model, network.id)
    shown = model.accounts.get("eip155").address
    return (shown_type(model, network.id) == SMART_ACCOUNT and account is not None and shown is not None
            and shown.lower() == account.address.lower())


def enabled_chains(model: Model) -> tuple[str, ...]:
    """The session's eip155 networks whose operator runs smart accounts."""
    return tuple(n.id for n in model.networks.known if n.namespace == "eip155" and n.smart_accounts)[:MAX_CHAINS]


# ----- messages


@dataclass(frozen=True)
class PressedSwitchAccountType(Msg):
    """Account's 'Switch to your EOA' / 'Switch to your Smart Account'."""


@dataclass(frozen=True)
class SwitchSettled(Msg):
    """The switch's balance did not come within SWITCH_HOLD_MS: the host hears of it anyway."""


class ReadAccount(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    chain: str = Field(pattern=r"^eip155:[0-9]{1,32}$")
    address: str = Field(pattern=r"^0x[0-9a-fA-F]{40}$")
    deployed: bool


class SmartAccountsResult(BaseModel):
    """`embedded.smart_accounts`: the owner key's smart account per asked chain (a chain the
    engine could not read is left out)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    owner: str = Field(pattern=r"^0x[0-9a-fA-F]{40}$")
    accounts: list[ReadAccount] = Field(max_length=MAX_CHAINS)


@dataclass(frozen=True)
class SmartAccountsRead(Reply):
    """`embedded.smart_accounts` answered (`key`: the owner address)."""

    result: SmartAccountsResult | None = None
