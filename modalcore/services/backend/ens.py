"""Names on a chain's ENS, read with `eth_call` (behaviour.md §7 "Name lookup over a chain name
service"): forward (namehash → registry.resolver → resolver.addr) and reverse
(<addr>.addr.reverse → resolver.name, shown only when that name resolves forward to the same
address). `CachedNames` keeps answers for 5 minutes (behaviour.md §9) in a pure TimedCache, with the
time passed in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
from eth_utils.address import to_checksum_address

from ...rules.names import ERROR_NAMES_FOR_ADDRESS, ERROR_RESOLVING
from .abi import eth_call
from .jsonrpc import RpcCallError
from .name_cache import TimedCache, address_key, name_key
from .namehash import namehash, reverse_node


class NameLookupError(RuntimeError):
    """The chain could not be read; `str(error)` is behaviour.md §8's message."""


@dataclass(frozen=True)
class EnsDeployment:
    chain_id: int
    registry: str

    @classmethod
    def from_deployment(cls, entry: Mapping[str, Any]) -> EnsDeployment:
        """From a dev-chain deployment entry (fixtures/chain/deployment.json)."""
        return cls(int(entry["chainId"]), str(entry["ens"]["registry"]))


class EnsNames:
    def __init__(self, http: httpx.AsyncClient, rpc_url: str, ens: EnsDeployment) -> None:
        self.http = http
        self.rpc_url = rpc_url
        self.ens = ens
        self.chain_id = ens.chain_id

    async def _resolver(self, node: bytes) -> str | None:
        (resolver,) = await eth_call(self.http, self.rpc_url, self.ens.registry,
                                     "resolver(bytes32)", [node], ["address"])
        return None if int(resolver, 16) == 0 else str(resolver)

    async def _record(self, node_of: Callable[[str], bytes], key: str, signature: str, kind: str,
                      failed: str) -> Any:
        """The resolver's `signature` record (of type `kind`) for the node of `key`, or None
        without a resolver; a failed read raises NameLookupError(`failed`)."""
        try:
            node = node_of(key)
            resolver = await self._resolver(node)
            if resolver is None:
                return None
            (value,) = await eth_call(self.http, self.rpc_url, resolver, signature, [node], [kind])
        except (RpcCallError, httpx.HTTPError, ValueError) as error:
            raise NameLookupError(failed) from error
        return value

    async def address_of(self, name: str) -> str | None:
        """The address `name` resolves to, or None (no resolver, or no address set)."""
        address = await self._record(namehash, name, "addr(bytes32)", "address", ERROR_RESOLVING)
        return None if address is None or int(address, 16) == 0 else str(to_checksum_address(address))

    async def name_of(self, address: str) -> str | None:
        """The reverse name of `address`, only when that name resolves back to it."""
        name = await self._record(reverse_node, address, "name(bytes32)", "string", ERROR_NAMES_FOR_ADDRESS)
        if not name:
            return None
        try:
            forward = await self.address_of(str(name))
        except NameLookupError as error:
            raise NameLookupError(ERROR_NAMES_FOR_ADDRESS) from error
        if forward is None or forward.lower() != address.lower():
            return None
        return str(name)


class NameSource(Protocol):
    """Where names come from: a chain's ENS (EnsNames) or the hosted profile API
    (profile_api.HostedNames)."""

    chain_id: int

    async def address_of(self, name: str) -> str | None: ...

    async def name_of(self, address: str) -> str | None: ...


class CachedNames:
    """A NameSource behind a TimedCache; every call takes the time (ms) from its caller."""

    def __init__(self, names: NameSource, cache: TimedCache[str | None] | None = None) -> None:
        self.names = names
        self.cache: TimedCache[str | None] = cache if cache is not None else TimedCache()
        self.lookups = 0  # chain lookups made (cache misses)

    async def _cached(self, key: str, now_ms: int, lookup: Callable[[], Awaitable[str | None]]) -> str | None:
        hit = self.cache.get(key, now_ms)
        if hit is not None:
            return hit.value
        self.lookups += 1
        value = await lookup()
        self.cache = self.cache.put(key, value, now_ms)
        return value

    async def address_of(self, name: str, now_ms: int) -> str | None:
        return await self._cached(name_key(self.names.chain_id, name), now_ms, lambda: self.names.address_of(name))

    async def name_of(self, address: str, now_ms: int) -> str | None:
        return await self._cached(address_key(self.names.chain_id, address), now_ms,
                                  lambda: self.names.name_of(address))
