"""Models for harness sessions: as `join` builds them, with the overrides a test needs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from .. import samples
from ..chains.catalog import Network
from ..slices.accounts import AccountsState, AccountState
from ..slices.model import Model, initial_model
from ..slices.options import parse_options
from ..slices.router import Route, TxEntry
from ..slices.siwx import SiwxState
from ..wire.frames import AnnouncedWallet, Env

DEFAULT_OPTIONS: dict[str, object] = {"networks": ["eip155:1"]}
DEV_ADDRESS = samples.DEV_ADDRESS
METAMASK = {"uuid": "mm-uuid", "name": "MetaMask", "icon": "data:image/svg+xml,mm", "rdns": "io.metamask"}


def connected_accounts(
    address: str = DEV_ADDRESS, namespace: str = "eip155", chain: str = "1"
) -> AccountsState:
    """Accounts with one connected address in `namespace`."""
    state = AccountState(
        address=address, status="connected", caip_address=f"{namespace}:{chain}:{address}"
    )
    return AccountsState().with_account(namespace, state)


def build_model(
    options: Mapping[str, object] | None = None,
    *,
    env: Mapping[str, object] | None = None,
    wallets: Iterable[Mapping[str, object]] = (),
    accounts: AccountsState | None = None,
    siwx: SiwxState | None = None,
    history: Iterable[str] | None = None,
    is_open: bool = False,
    project: str = "test-project",
    origin: str = "http://localhost:8000",
    known_networks: Mapping[str, Network] | None = None,
    walletconnect: bool = False,
) -> Model:
    """The model a session starts with, as `join` builds it, then the overrides given.

    `history` puts views on the stack directly (views without a view module yet included);
    `is_open` starts with the modal open; `known_networks` is the operator's network catalog
    (e.g. the dev chains with their RPC URLs).
    """
    model = initial_model(
        project,
        origin,
        parse_options(dict(options if options is not None else DEFAULT_OPTIONS)),
        Env.model_validate(dict(env or {})),
        [AnnouncedWallet.model_validate(dict(wallet)) for wallet in wallets],
        known_networks=dict(known_networks) if known_networks is not None else None,
        walletconnect=walletconnect,
    )
    if accounts is not None:
        model = replace(model, accounts=accounts)
    if siwx is not None:
        model = replace(model, siwx=siwx)
    if history is not None:
        routes = tuple(Route(view) for view in history)
        model = replace(model, router=replace(model.router, history=routes))
    if is_open:
        model = replace(model, modal=replace(model.modal, open=True))
    return model


def with_history(model: Model, *views: str, tx_stack: tuple[TxEntry, ...] = ()) -> Model:
    """`model` with the view stack `views` (bottom first) and the transaction stack `tx_stack`."""
    routes = tuple(Route(view) for view in views)
    return replace(model, router=replace(model.router, history=routes, tx_stack=tx_stack))
