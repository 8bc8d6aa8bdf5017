"""Names for addresses (behaviour.md §3 profileName, §7 name lookup, §9 ENS cached 5 minutes, names
eip155 only): the connected account's and those of the Activity tab's counterparties.

After every message the observer asks service `name_of` for each shown address whose name is
not known, or was learnt more than 5 minutes ago (time passed in). Nothing waits for a name:
views draw the truncated address until one arrives (`shown_name`). The connected account's name
becomes its `profile_name` (Account view, the connect button's `display`). A failed lookup
counts as "no name" until the next lifetime (a name is secondary: no snackbar)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import Cmd, Reply
from ..core.evolve import replace
from ..core.shape import On, Slice
from ..rules import limits as L
from ..rules.names import NAME_NAMESPACES
from ..services.domain.handles import NAME_OF

if TYPE_CHECKING:
    from .model import Model, Step

NAME_TTL_MS = 5 * 60 * 1000  # behaviour.md §9: ENS 5 min
PENDING_MS = 30_000  # a lookup not answered by then (a lost call) may be asked again


class NameFound(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    name: str | None = None


@dataclass(frozen=True)
class NameOfAddressFetched(Reply):
    """The name of `key` (`<caip2>:<address lower>`) came back (None: it has none)."""

    result: NameFound | None = None


@dataclass(frozen=True)
class KnownName:
    key: str
    name: str | None
    at: int


@dataclass(frozen=True)
class KnownAddress:
    key: str  # `<caip2>:<name lower>`
    value: str | None  # the address it resolves to, or None
    at: int


@dataclass(frozen=True)
class NamesState:
    known: tuple[KnownName, ...] = ()
    pending: tuple[tuple[str, int], ...] = ()  # (key, asked at)
    addresses: tuple[KnownAddress, ...] = ()  # names resolved (a send to a name)
    due: int = 0  # when a wanted name next needs asking (a lifetime or a lost call ends)


def name_key(network_id: str, address: str) -> str:
    return f"{network_id}:{address.lower()}"


def shown_name(model: Model, address: str | None) -> str | None:
    """The name to show for `address` on the active network, if one is known."""
    network = model.networks.active
    if not address or network is None:
        return None
    key = name_key(network, address)
    return next((k.name for k in model.names.known if k.key == key), None)


def wanted_addresses(model: Model) -> list[str]:
    """The connected account, then the Activity tab's counterparties (newest first), bounded."""
    account = model.accounts.get(model.networks.active_namespace)
    seen: dict[str, None] = {}
    if account.address:
        seen[account.address.lower()] = None
    if model.history.account == account.caip_address:
        for tx in model.history.transactions:
            if len(seen) >= L.MAX_NAME_LOOKUPS:
                break
            for address in (tx.sent_from, tx.sent_to):
                if address and len(seen) < L.MAX_NAME_LOOKUPS:
                    seen.setdefault(address.lower(), None)
    return list(seen)


def _with_profile_name(model: Model) -> Model:
    namespace = model.networks.active_namespace
    account = model.accounts.get(namespace)
    if namespace is None or account.status != "connected":
        return model
    name = shown_name(model, account.address)
    if name == account.profile_name:
        return model
    return replace(model, accounts=model.accounts.with_account(namespace, replace(account, profile_name=name)))


def _unchanged(before: Model, after: Model, now: int) -> bool:
    """Nothing a lookup depends on changed, and no lifetime has ended since the last look."""
    if not (before.history is after.history and before.networks is after.networks
            and before.names is after.names and now < after.names.due):
        return False
    if before.accounts is after.accounts:
        return True
    was, now_is = (m.accounts.get(m.networks.active_namespace) for m in (before, after))
    return (was.address, was.status, was.profile_name) == (now_is.address, now_is.status, now_is.profile_name)


def observe(before: Model, after: Model, now: int) -> Step:
    network = after.networks.active_network
    if network is None or network.namespace not in NAME_NAMESPACES or after.networks.unsupported:
        return after, []
    if not network.ens_registry or not network.rpc_urls or _unchanged(before, after, now):
        return after, []
    state = after.names
    asked = {k: at for k, at in state.pending if now - at < PENDING_MS}
    learnt = {k.key: k.at for k in state.known if 0 <= now - k.at < NAME_TTL_MS}
    cmds: list[Cmd] = []
    due = now + NAME_TTL_MS
    for address in wanted_addresses(after):
        key = name_key(network.id, address)
        if key in asked:
            due = min(due, asked[key] + PENDING_MS)
            continue
        if key in learnt:
            due = min(due, learnt[key] + NAME_TTL_MS)
            continue
        asked[key] = now
        due = min(due, now + PENDING_MS)
        args = NAME_OF.args(chain_id=int(network.reference), rpc_url=network.rpc_urls[0],
                            registry=network.ens_registry or "", address=address)
        cmds.append(NAME_OF.call(args, NameOfAddressFetched, key))
    pending = tuple(asked.items())
    if pending != state.pending or due != state.due:
        after = replace(after, names=replace(state, pending=pending, due=due))
    return _with_profile_name(after), cmds


def remember(state: NamesState, key: str, name: str | None, now: int) -> NamesState:
    """`state` knowing `name` for `key` (learnt at `now`), the oldest entries dropped past the bound."""
    known = tuple(k for k in state.known if k.key != key) + (KnownName(key, name, now),)
    if len(known) > L.MAX_KNOWN_NAMES:
        known = tuple(sorted(known, key=lambda k: k.at)[-L.MAX_KNOWN_NAMES:])
    return replace(state, known=known, pending=tuple(p for p in state.pending if p[0] != key))


def known_address(model: Model, name: str, now: int) -> KnownAddress | None:
    """What `name` resolved to on the active network less than 5 minutes ago, if anything."""
    network = model.networks.active
    if network is None:
        return None
    key = name_key(network, name)
    return next((k for k in model.names.addresses if k.key == key and 0 <= now - k.at < NAME_TTL_MS), None)


def remember_address(model: Model, name: str, address: str | None, now: int) -> NamesState:
    state = model.names
    network = model.networks.active
    if network is None:
        return state
    key = name_key(network, name)
    kept = tuple(k for k in state.addresses if k.key != key and 0 <= now - k.at < NAME_TTL_MS)
    addresses = (*kept, KnownAddress(key, address, now))[-L.MAX_KNOWN_NAMES:]
    return replace(state, addresses=addresses)


def on_name(model: Model, msg: NameOfAddressFetched, now: int) -> Step:
    previous = next((k.name for k in model.names.known if k.key == msg.key), None)
    # a failure keeps a name learnt before; it is asked again after the lifetime
    name = msg.result.name if msg.ok and msg.result is not None else previous
    return replace(model, names=remember(model.names, msg.key, name or None, now)), []


HANDLERS = (On(NameOfAddressFetched, on_name),)

SLICE = Slice("names", HANDLERS, observe)
