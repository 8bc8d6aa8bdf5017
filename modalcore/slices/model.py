"""The whole state of one visitor's modal: plain frozen data, persisted as msgpack."""

from __future__ import annotations

from dataclasses import dataclass, field
from ..core.evolve import replace
from functools import cache
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from ..chains.catalog import Network, catalog, pick
from .accounts import AccountsState
from .alerts import AlertState
from .balances import BalancesState
from .disconnect import DisconnectState
from .directory_query import DirectoryState
from .embedded import EmbeddedState
from .history import HistoryState
from .names import NamesState
from .nfts import NftsState
from .register_name import RegisterState
from .send_form import SendState
from .swap_form import SwapState
from .onramp_state import OnrampState
from .switching import SwitchState
from .connecting import ConnectionState
from .connectors import ConnectorsState, from_wallets
from .modal import ModalState
from .networks import NetworksState
from .options import HostOptions
from .router import RouterState
from .siwx import SiwxState
from .snack import SnackState
from .theme import ThemeState, from_options
from .walletconnect import WcState
from ..wire.frames import AnnouncedWallet, Env
from ..core.cmds import Cmd


@dataclass(frozen=True)
class Model:
    project_id: str = ""
    session_id: str = ""
    origin: str = ""
    options: HostOptions = field(default_factory=HostOptions)
    env: Env = field(default_factory=Env)
    modal: ModalState = field(default_factory=ModalState)
    router: RouterState = field(default_factory=RouterState)
    snack: SnackState = field(default_factory=SnackState)
    alert: AlertState = field(default_factory=AlertState)
    theme: ThemeState = field(default_factory=ThemeState)
    accounts: AccountsState = field(default_factory=AccountsState)
    networks: NetworksState = field(default_factory=NetworksState)
    siwx: SiwxState = field(default_factory=SiwxState)
    connectors: ConnectorsState = field(default_factory=ConnectorsState)
    connection: ConnectionState = field(default_factory=ConnectionState)
    balances: BalancesState = field(default_factory=BalancesState)
    disconnecting: DisconnectState = field(default_factory=DisconnectState)
    switching: SwitchState = field(default_factory=SwitchState)
    send: SendState = field(default_factory=SendState)
    swap: SwapState = field(default_factory=SwapState)
    onramp: OnrampState = field(default_factory=OnrampState)
    history: HistoryState = field(default_factory=HistoryState)
    nfts: NftsState = field(default_factory=NftsState)
    directory: DirectoryState = field(default_factory=DirectoryState)
    walletconnect: WcState = field(default_factory=WcState)
    names: NamesState = field(default_factory=NamesState)
    register_name: RegisterState = field(default_factory=RegisterState)
    embedded: EmbeddedState = field(default_factory=EmbeddedState)
    counter: int = 0

    def next_id(self, prefix: str) -> tuple[Model, str]:
        """A deterministic id (so replays match): the model counts what it has named."""
        count = self.counter + 1
        return replace(self, counter=count), f"{prefix}{count}"


Step = tuple[Model, list[Cmd]]


def initial_model(
    project_id: str,
    origin: str,
    options: HostOptions,
    env: Env,
    wallets: list[AnnouncedWallet] | tuple[AnnouncedWallet, ...] = (),
    known_networks: Mapping[str, Network] | None = None,
    walletconnect: bool = False,
) -> Model:
    """`walletconnect`: the engine runs WalletConnect (its operator configured a relay); the
    connector is offered when the host does not turn it off (`enableWalletConnect`)."""
    connectors = from_wallets((), wallets, walletconnect=walletconnect and options.enableWalletConnect)
    known = pick(known_networks if known_networks is not None else catalog(), options.networks)
    default = options.defaultNetwork if options.defaultNetwork in options.networks else None
    networks = NetworksState(
        known=known,
        active=default or (known[0].id if known else None),
    )
    return Model(
        project_id=project_id,
        origin=origin,
        options=options,
        env=env,
        theme=from_options(options.themeMode, options.themeVariables),
        networks=networks,
        connectors=connectors,
        modal=ModalState(
            initialized=True,
            selected_network_id=networks.active,
            active_chain=networks.active_namespace,
        ),
        siwx=SiwxState(
            enabled=options.siwx is not None,
            required=bool(options.siwx and options.siwx.required),
        ),
    )


@cache
def _adapter() -> TypeAdapter[Model]:
    return TypeAdapter(Model)


def model_to_data(model: Model) -> Any:
    return _adapter().dump_python(model, mode="python")


def model_from_data(data: Any) -> Model:
    return _adapter().validate_python(data)
