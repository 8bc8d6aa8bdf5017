"""`/getWallets` over an in-process directory (behaviour.md §7): filters, search and pages.

A query's filters (include, exclude, chains, badge, platform) give a candidate list that is
cached per filter set, since every session of a project asks with the same options. Search
runs over one lowercase string holding every name, with `str.find`, so it stays well under a
millisecond even for directories far larger than the curated one.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import platform
from .wallets import DEFAULT_FILE, DirectoryError, Wallet, read_wallets

MAX_ENTRIES = 100
MAX_PAGE = 10_000
MAX_IDS = 200
MAX_SEARCH = 64
FILTER_CACHE = 64
_SPACES = re.compile(r"\s+")


class QueryError(ValueError):
    """A `/getWallets` parameter that does not validate (HTTP 400)."""


@dataclass(frozen=True)
class WalletQuery:
    page: int = 1
    entries: int = 40
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    search: str = ""
    badge_type: str = ""
    chains: tuple[str, ...] = ()
    mobile: bool = False  # platform rules: the engine's own calls only, from the join env
    universal: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.page <= MAX_PAGE:
            raise QueryError(f"page must be 1 to {MAX_PAGE}")
        if not 1 <= self.entries <= MAX_ENTRIES:
            raise QueryError(f"entries must be 1 to {MAX_ENTRIES}")
        for name in ("include", "exclude", "chains"):
            values = getattr(self, name)
            if len(values) > MAX_IDS or any(not v or len(v) > 128 for v in values):
                raise QueryError(f"{name}: at most {MAX_IDS} ids of 1 to 128 characters")
        if len(self.search) > 256 or len(self.badge_type) > 32:
            raise QueryError("search or badge_type too long")

    @staticmethod
    def from_args(args: Mapping[str, Any]) -> WalletQuery:
        """From a service call's keyword arguments (lists or comma strings)."""
        try:
            return WalletQuery(
                page=int(args.get("page", 1)),
                entries=int(args.get("entries", 40)),
                include=_ids(args.get("include")),
                exclude=_ids(args.get("exclude")),
                search=str(args.get("search") or ""),
                badge_type=str(args.get("badge_type") or ""),
                chains=_ids(args.get("chains")),
                mobile=bool(args.get("mobile", False)),
                universal=bool(args.get("universal", False)),
            )
        except (TypeError, ValueError) as error:
            raise QueryError(str(error)) from error

    @staticmethod
    def from_params(params: Mapping[str, str]) -> WalletQuery:
        """From `/getWallets` query parameters (behaviour.md §7 names; no platform parameters)."""
        return WalletQuery.from_args({
            key: params[key]
            for key in ("page", "entries", "include", "exclude", "search", "badge_type", "chains")
            if key in params and params[key] != ""
        })


def _ids(value: object) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
    else:
        raise QueryError("expected a list of ids")
    return tuple(dict.fromkeys(item.strip() for item in items if item.strip()))


def normalize(text: str) -> str:
    return _SPACES.sub(" ", text.strip().lower())[:MAX_SEARCH]


@dataclass(frozen=True)
class Page:
    data: tuple[Wallet, ...]
    count: int


def chain_match(wallet_chains: frozenset[str], namespaces: frozenset[str], wanted: Sequence[str]) -> bool:
    """A wallet serves a requested chain it lists; an EVM wallet serves any EVM chain (it can
    add one with wallet_addEthereumChain), so local dev chains still find their wallets."""
    for chain in wanted:
        if chain in wallet_chains:
            return True
        if chain.startswith("eip155:") and "eip155" in namespaces:
            return True
    return False


@dataclass
class Directory:
    wallets: tuple[Wallet, ...]
    by_id: dict[str, int] = field(init=False)
    _names: list[str] = field(init=False)
    _name_keys: list[str] = field(init=False)
    _name_index: list[int] = field(init=False)
    _word_keys: list[str] = field(init=False)
    _word_index: list[int] = field(init=False)
    _chains: list[frozenset[str]] = field(init=False)
    _namespaces: list[frozenset[str]] = field(init=False)
    _filters: OrderedDict[tuple[Any, ...], tuple[tuple[int, ...], frozenset[int]]] = field(init=False)

    def __post_init__(self) -> None:
        self.by_id = {wallet.id: index for index, wallet in enumerate(self.wallets)}
        self._names = [normalize(wallet.name) for wallet in self.wallets]
        by_name = sorted((name, index) for index, name in enumerate(self._names))
        self._name_keys = [name for name, _ in by_name]
        self._name_index = [index for _, index in by_name]
        # every word start after the first character: where the preceding character is not a
        # letter or a digit ("safe{wallet}" has one at "wallet}")
        words = sorted(
            (name[position:], index)
            for index, name in enumerate(self._names)
            for position in range(1, len(name))
            if not name[position - 1].isalnum()
        )
        self._word_keys = [key for key, _ in words]
        self._word_index = [index for _, index in words]
        self._chains = [frozenset(wallet.chains) for wallet in self.wallets]
        self._namespaces = [frozenset(c.split(":", 1)[0] for c in wallet.chains) for wallet in self.wallets]
        self._filters = OrderedDict()

    def __len__(self) -> int:
        return len(self.wallets)

    def get(self, wallet_id: str) -> Wallet | None:
        index = self.by_id.get(wallet_id)
        return None if index is None else self.wallets[index]

    def find(self, key: str) -> Wallet | None:
        """A wallet by id, else by image id."""
        found = self.get(key)
        if found is not None:
            return found
        return next((w for w in self.wallets if w.image_id and w.image_id == key), None)

    # ----- filters
    def candidates(self, query: WalletQuery) -> tuple[tuple[int, ...], frozenset[int]]:
        """The indices a query's filters allow, in order and as a set (cached per filter set)."""
        key = (query.include, query.exclude, query.chains, query.badge_type, query.mobile, query.universal)
        cached = self._filters.get(key)
        if cached is not None:
            self._filters.move_to_end(key)
            return cached
        indices = tuple(self._filter(query))
        result = (indices, frozenset(indices))
        self._filters[key] = result
        if len(self._filters) > FILTER_CACHE:
            self._filters.popitem(last=False)
        return result

    def _filter(self, query: WalletQuery) -> list[int]:
        if query.badge_type and query.badge_type != "none":
            return []  # the curated directory carries no badges (e.g. "certified")
        include = set(query.include)
        exclude = set(query.exclude)
        indices: list[int] = []
        for index, wallet in enumerate(self.wallets):
            if include and wallet.id not in include:
                continue
            if wallet.id in exclude:
                continue
            if query.chains and not chain_match(self._chains[index], self._namespaces[index], query.chains):
                continue
            if not platform.usable(wallet, mobile=query.mobile, universal=query.universal):
                continue
            indices.append(index)
        return indices

    # ----- search
    @staticmethod
    def _prefixed(keys: list[str], index: list[int], needle: str) -> list[int]:
        low = bisect.bisect_left(keys, needle)
        high = bisect.bisect_left(keys, needle + "\U0010ffff", low)
        return index[low:high]

    def search(self, text: str) -> list[int]:
        """Indices of wallets whose name contains `text`, best first: the exact name, then
        names starting with it, then a word starting with it, then anywhere; ties keep the
        directory's order. Prefixes come from sorted keys (bisect), so only the "anywhere"
        tier costs a pass over the names, done by `str.__contains__`."""
        needle = normalize(text)
        if not needle:
            return list(range(len(self.wallets)))
        names = self._names
        prefixed = sorted(self._prefixed(self._name_keys, self._name_index, needle))
        exact = [index for index in prefixed if names[index] == needle]
        starts = [index for index in prefixed if names[index] != needle]
        first = set(prefixed)
        words = sorted({index for index in self._prefixed(self._word_keys, self._word_index, needle)
                        if index not in first})
        first.update(words)
        anywhere = [index for index, name in enumerate(names) if needle in name and index not in first]
        return [*exact, *starts, *words, *anywhere]

    # ----- the call
    def query(self, query: WalletQuery) -> Page:
        candidates, allowed = self.candidates(query)
        matched: Sequence[int] = candidates
        if query.search.strip():
            matched = [index for index in self.search(query.search) if index in allowed]
        first = (query.page - 1) * query.entries
        chosen = matched[first:first + query.entries]
        return Page(tuple(self.wallets[index] for index in chosen), len(matched))


@functools.lru_cache(maxsize=8)
def load_directory(path: str | None = None) -> Directory:
    """The directory of a file (None: the packaged one), read once per process."""
    return Directory(read_wallets(DEFAULT_FILE if path is None else path))


__all__ = ["Directory", "DirectoryError", "Page", "QueryError", "WalletQuery", "load_directory"]
