"""The wallet directory's state in a session and the queries it sends (behaviour.md §7, §9): one
`directory` service call (`Call`) per page, pick list or search, with the platform facts from the
join's env and the host's include / exclude lists; its answer comes back as `DirectoryFetched`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, field_validator

from ..core.cmds import Cmd, Reply
from ..directory.domain.wallets import Wallet, wallets_from_data
from ..rules import limits as L
from ..services.domain.handles import DIRECTORY

if TYPE_CHECKING:
    from .model import Model

PAGE_ENTRIES = 40
IMAGES_PER_PAGE = 20  # behaviour.md §9: images for the first 20 of each page
RECOMMENDED_ENTRIES = 4
SEARCH_ENTRIES = 100
SERVICE = DIRECTORY

Status = str  # "idle" | "loading" | "ready" | "error"


@dataclass(frozen=True)
class DirectoryState:
    wallets: tuple[Wallet, ...] = ()  # the All Wallets pages loaded so far, in order
    page: int = 0  # the last page loaded
    count: int = 0  # how many wallets the directory has for this session's filters
    pages: Status = "idle"
    featured: tuple[Wallet, ...] = ()
    featured_status: Status = "idle"
    recommended: tuple[Wallet, ...] = ()
    recommended_status: Status = "idle"
    search_text: str = ""  # what the search input holds
    search_query: str = ""  # the query of the results below ("" = no search)
    results: tuple[Wallet, ...] = ()
    searching: bool = False  # a query waits for its debounce or its answer
    search_seq: int = 0  # numbers queries; a late answer to an older one is dropped
    image_base: str = ""  # where the engine's image routes are, as the service tells
    selected: Wallet | None = None  # the wallet whose page is shown
    selected_custom: bool = False

    @property
    def has_more(self) -> bool:
        """Another page exists and the list is under its bound (past it, search finds the rest)."""
        return (self.pages == "ready" and self.page * PAGE_ENTRIES < self.count
                and len(self.wallets) < L.MAX_LISTED_WALLETS)



def _chains(model: Model) -> list[str]:
    return [network.id for network in model.networks.known] or list(model.options.networks)


def query_args(model: Model, *, page: int, entries: int, include: Iterable[str] | None = None,
          exclude: Iterable[str] | None = None, search: str = "", chains: bool = True) -> dict[str, object]:
    options = model.options
    return {
        "page": page,
        "entries": entries,
        "include": list(options.includeWalletIds if include is None else include),
        "exclude": list((*options.excludeWalletIds, *options.featuredWalletIds) if exclude is None else exclude),
        "search": search,
        "badge_type": "",
        "chains": _chains(model) if chains else [],
        "mobile": model.env.mobile,
        "universal": options.universalProvider,
    }


class DirectoryPage(BaseModel):
    """What service `directory` returns: a page of wallets (a record that does not validate is
    skipped, the rest of the page is still good), the directory's size and its image base."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    data: tuple[Wallet, ...] = ()
    count: int | None = None
    image_base: str | None = None

    @field_validator("data", mode="before")
    @classmethod
    def _valid_wallets(cls, value: object) -> tuple[Wallet, ...]:
        if not isinstance(value, (list, tuple)):
            return ()
        if all(isinstance(item, Wallet) for item in value):
            return tuple(value)
        return tuple(wallets_from_data(value))


@dataclass(frozen=True)
class DirectoryFetched(Reply):
    """A directory page came back; `key` is what it was for: `featured`, `recommended`,
    `page:<n>` or `search:<query seq>`."""

    result: DirectoryPage | None = None


def directory_call(args: dict[str, object], param: str) -> Cmd:
    # the search text and the host's ids are the visitor's and the host's input
    return SERVICE.call_or_refusal(args, DirectoryFetched, param)
