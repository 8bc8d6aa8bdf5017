"""Disconnected state (behaviour.md §4 "Disconnect"): what the disconnect in progress waits for, and
what a model looks like once its accounts are gone (`cleared`, used by the disconnect flow, a
wallet that disconnects by itself and a connect that fails). The disconnect itself spans slices
and lives in `flows/disconnect.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.evolve import replace
from .balances import BalancesState
from .connecting import ConnectionState
from .embedded import EmbeddedState
from .smart_account import SmartAccountsState

if TYPE_CHECKING:
    from .model import Model


@dataclass(frozen=True)
class DisconnectState:
    pending: tuple[str, ...] = ()  # namespaces still waiting for their wallet
    failures: tuple[str, ...] = ()  # 'Failed to disconnect chain {chain}: ...'


def cleared(model: Model, namespaces: tuple[str, ...] | None = None) -> Model:
    """Account state of the namespaces back to disconnected; stored login data gone."""
    targets = namespaces if namespaces is not None else tuple(ns for ns, _ in model.accounts.by_namespace)
    accounts = model.accounts
    for namespace in targets:
        accounts = accounts.cleared(namespace)
    networks = replace(model.networks, unsupported=None)
    model = replace(model, siwx=model.siwx.forgotten())
    # the account type the visitor chose stays (AppKit keeps preferredAccountTypes in storage)
    smart = SmartAccountsState(preferred=model.smart.preferred) if "eip155" in targets else model.smart
    return replace(model, accounts=accounts, networks=networks, connection=ConnectionState(),
                   balances=BalancesState(), disconnecting=DisconnectState(), smart=smart,
                   embedded=EmbeddedState(email_offered=model.embedded.email_offered,
                                          socials=model.embedded.socials))
