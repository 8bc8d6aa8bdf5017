"""Networks the host requested and the active one (behaviour.md §3 Network, §4 switching)."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace

from ..chains.catalog import Network, placeholder


@dataclass(frozen=True)
class NetworksState:
    known: tuple[Network, ...] = ()  # the host's networks, in the host's order
    active: str | None = None
    unsupported: str | None = None  # a wallet chain the host did not request
    # the network the visitor (or the host) chose while no account of its namespace was
    # connected: the next connect lands on it (issue 39 item 7); cleared once connected
    chosen: str | None = None

    @property
    def requested(self) -> tuple[str, ...]:
        return tuple(network.id for network in self.known)

    @property
    def active_namespace(self) -> str | None:
        current = self.unsupported or self.active
        if current is None:
            return None
        return current.split(":", 1)[0]

    def get(self, network_id: str | None) -> Network | None:
        return next((n for n in self.known if n.id == network_id), None)

    @property
    def active_network(self) -> Network | None:
        if self.unsupported is not None:
            return placeholder(self.unsupported)
        return self.get(self.active)

    @property
    def active_rpc_url(self) -> str | None:
        """The active network's first RPC URL; None without an active network or URL."""
        network = self.active_network
        return network.rpc_urls[0] if network is not None and network.rpc_urls else None

    def is_requested(self, network_id: str) -> bool:
        return self.get(network_id) is not None


def activate(state: NetworksState, network_id: str) -> NetworksState:
    if state.is_requested(network_id):
        return replace(state, active=network_id, unsupported=None)
    return replace(state, unsupported=network_id)


def remove(state: NetworksState, network_id: str) -> NetworksState:
    """Removing a network falls back to the first remaining one."""
    known = tuple(n for n in state.known if n.id != network_id)
    active = state.active if state.active != network_id else (known[0].id if known else None)
    return replace(state, known=known, active=active)
