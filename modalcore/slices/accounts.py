"""Account state per namespace (behaviour.md §3, "Account state per namespace")."""

from __future__ import annotations

from dataclasses import dataclass, field
from ..core.evolve import replace
from typing import Literal

Status = Literal["disconnected", "connecting", "connected"]


@dataclass(frozen=True)
class TokenBalance:
    name: str
    symbol: str
    chain_id: str
    address: str | None
    value: float
    price: float
    quantity_decimals: str
    quantity_numeric: str
    icon_url: str = ""


@dataclass(frozen=True)
class WalletInfo:
    name: str
    icon: str = ""
    type: str = ""
    identifier: str = ""
    social: str = ""
    # a WalletConnect wallet paired by its deep link on a phone: that link (`metamask://`, AppKit's
    # wcLinking href), opened to bring the wallet forward for a request
    link: str = ""


@dataclass(frozen=True)
class AccountState:
    caip_address: str | None = None
    address: str | None = None
    status: Status = "disconnected"
    balance: str | None = None
    balance_symbol: str | None = None
    profile_name: str | None = None
    profile_image: str | None = None
    token_balance: tuple[TokenBalance, ...] = ()
    smart_account_deployed: bool = False
    current_tab: int = 0
    address_labels: tuple[tuple[str, str], ...] = ()
    all_accounts: tuple[tuple[str, str], ...] = ()
    user_email: str | None = None
    user_name: str | None = None
    preferred_account_type: str | None = None
    social_provider: str | None = None
    farcaster_url: str | None = None
    connected_wallet_info: WalletInfo | None = None
    connector_id: str | None = None


_NO_ACCOUNT = AccountState()


def holds_connection(account: AccountState) -> bool:
    """Connected, or being re-synced with its wallet after a reload (status "connecting" is only
    ever that, behaviour.md §4 "On start"): the visitor's connection stands until the wallet answers
    otherwise, so a reload is no disconnect and its re-sync no new connect (issue 31)."""
    return account.status != "disconnected"


@dataclass(frozen=True)
class AccountsState:
    by_namespace: tuple[tuple[str, AccountState], ...] = field(default_factory=tuple)

    def get(self, namespace: str | None) -> AccountState:
        for key, state in self.by_namespace:
            if key == namespace:
                return state
        return _NO_ACCOUNT  # immutable: one shared empty account (building one was most of a get)

    def active_address(self, namespace: str | None) -> str | None:
        return self.get(namespace).address

    def with_account(self, namespace: str, state: AccountState) -> AccountsState:
        rest = tuple((key, value) for key, value in self.by_namespace if key != namespace)
        return replace(self, by_namespace=(*rest, (namespace, state)))

    def cleared(self, namespace: str) -> AccountsState:
        """Disconnected: address, balances, profile, tokens, social data and connector id gone."""
        previous = self.get(namespace)
        return self.with_account(namespace, AccountState(current_tab=previous.current_tab))
