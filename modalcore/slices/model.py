"""The whole state of one visitor's modal: plain frozen data, persisted as msgpack."""

from __future__ import annotations

from dataclasses import dataclass, field
from ..core.evolve import replace
from functools import cache
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import TypeAdapter

from ..chains.catalog import Network, catalog, pick
from .accounts import AccountsState
from .alerts import AlertState
from .balances import BalancesState
from .disconnect import DisconnectState
from .doctor import DoctorState
from .handoff import HandoffState
from .directory_query import DirectoryState
from .calls import CallsState
from .embedded import EmbeddedState
from .history import HistoryState
from .names import NamesState
from .nfts import NftsState
from .register_name import RegisterState
from .send_form import SendState
from .swap_form import SwapState
from .onramp_state import OnrampState
from .pending import PendingState
from .switching import SwitchState
from .connecting import ConnectionState
from .connectors import ConnectorsState, from_wallets
from .modal import ModalState
from .networks import NetworksState
from .options import HostOptions
from .router import RouterState
from .siwx import SiwxState
from .smart_account import SmartAccountsState
from .snack import SnackState
from .theme import ThemeState, from_options
from .walletconnect import WcState
from ..wire.frames import AnnouncedWallet, Env
from ..core.cmds import Cmd


@dataclass(frozen=True)
class Model:
    # A slice's default is one instance every model shares (slices are frozen, immutable all
    # the way down, and a change replaces the slice): a new session's model holds ~20 fewer
    # objects of its own (~2.4 KiB, issue 17's idle figure). `tests/engine/test_shared_welcome.py`.
    project_id: str = ""
    session_id: str = ""
    origin: str = ""
    options: HostOptions = field(default_factory=HostOptions)
    env: Env = field(default_factory=Env)
    modal: ModalState = ModalState()
    router: RouterState = RouterState()
    snack: SnackState = SnackState()
    alert: AlertState = AlertState()
    theme: ThemeState = ThemeState()
    accounts: AccountsState = AccountsState()
    networks: NetworksState = NetworksState()
    siwx: SiwxState = SiwxState()
    connectors: ConnectorsState = ConnectorsState()
    connection: ConnectionState = ConnectionState()
    balances: BalancesState = BalancesState()
    disconnecting: DisconnectState = DisconnectState()
    switching: SwitchState = SwitchState()
    send: SendState = SendState()
    swap: SwapState = SwapState()
    onramp: OnrampState = OnrampState()
    history: HistoryState = HistoryState()
    nfts: NftsState = NftsState()
    directory: DirectoryState = DirectoryState()
    walletconnect: WcState = WcState()
    names: NamesState = NamesState()
    register_name: RegisterState = RegisterState()
    embedded: EmbeddedState = EmbeddedState()
    calls: CallsState = CallsState()  # the EIP-5792 batch CallsStatus shows (issue 32)
    smart: SmartAccountsState = SmartAccountsState()  # the embedded sign-in's account types (issue 32)
    doctor: DoctorState = DoctorState()  # the last failure's cause (issue 44)
    handoff: HandoffState = HandoffState()  # continue on another device (issue 44 item 1)
    pending: PendingState = PendingState()  # the effects waiting on an answer (engine/pending.py)
    counter: int = 0

    def draft_owner(self) -> tuple[str | None, str | None]:
        """Whose a Send or Swap draft is: the active network and its namespace's address (a
        change of either, a disconnect included, starts a new draft)."""
        return self.networks.active, self.accounts.get(self.networks.active_namespace).address

    def owns_drafts_of(self, other: Model) -> bool:
        """The same draft owner as `other`'s (`draft_owner`): at once when both read the very
        same (immutable) networks and accounts slices, as after most updates."""
        if self.networks is other.networks and self.accounts is other.accounts:
            return True
        return self.draft_owner() == other.draft_owner()

    def next_id(self, prefix: str) -> tuple[Model, str]:
        """A deterministic id (so replays match): the model counts what it has named."""
        count = self.counter + 1
        return replace(self, counter=count), f"{prefix}{count}"


Step = tuple[Model, list[Cmd]]

S = TypeVar("S")
SHARED_SLICES = 256  # distinct slice values `shared` keeps (new sessions' option-derived slices)
_shared: OrderedDict[object, object] = OrderedDict()


def shared(value: S) -> S:
    """The one instance of an equal slice value made before (kept for the most recent
    SHARED_SLICES values), else `value`: the sessions of one site build the same theme,
    networks, connectors... from the same options, and a slice is immutable, so they can hold
    one copy (issue 17's idle memory). An unhashable value is returned as is."""
    try:
        known = _shared.get(value)
    except TypeError:
        return value
    if known is not None:
        _shared.move_to_end(value)
        return known  # type: ignore[return-value]
    _shared[value] = value
    while len(_shared) > SHARED_SLICES:
        _shared.popitem(last=False)
    return value


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
    networks = shared(NetworksState(
        known=known,
        active=default or (known[0].id if known else None),
    ))
    return Model(
        project_id=project_id,
        origin=origin,
        options=options,
        env=env,
        theme=shared(from_options(options.themeMode, options.themeVariables)),
        networks=networks,
        connectors=shared(connectors),
        modal=shared(ModalState(
            initialized=True,
            selected_network_id=networks.active,
            active_chain=networks.active_namespace,
        )),
        siwx=shared(SiwxState(
            enabled=options.siwx is not None,
            required=bool(options.siwx and options.siwx.required),
        )),
    )


@cache
def _adapter() -> TypeAdapter[Model]:
    return TypeAdapter(Model)


def model_to_data(model: Model) -> Any:
    return _adapter().dump_python(model, mode="python")


def model_from_data(data: object) -> Model:
    return _adapter().validate_python(data)
