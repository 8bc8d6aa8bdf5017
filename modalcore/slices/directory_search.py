"""Wallet search in All Wallets (behaviour.md §9): the query waits 300 ms after the last keystroke (a
`StartTimer` with one key, so fast typing sends one query) and asks for at most 100 results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, StartTimer
from ..core.evolve import replace
from ..core.msg import Msg
from ..rules import limits as L
from .directory_query import SEARCH_ENTRIES, directory_call, query_args

if TYPE_CHECKING:
    from .model import Model, Step

SEARCH_DEBOUNCE_MS = 300
SEARCH_TIMER = "directory.search"


@dataclass(frozen=True)
class TypedWalletSearch(Msg):
    value: str


@dataclass(frozen=True)
class WalletSearchDue(Msg):
    """The search input has been still for 300 ms."""

    value: str



def on_typed(model: Model, msg: TypedWalletSearch, now: int) -> Step:
    """Every keystroke restarts the 300 ms wait and outdates any query in flight."""
    text = msg.value[:L.TEXT_INPUT_CHARS]
    state = replace(model.directory, search_text=text, search_seq=model.directory.search_seq + 1)
    if not text.strip():
        state = replace(state, search_query="", results=(), searching=False)
        return replace(model, directory=state), [CancelTimer(SEARCH_TIMER)]
    state = replace(state, searching=True)
    return replace(model, directory=state), [StartTimer(SEARCH_TIMER, SEARCH_DEBOUNCE_MS, WalletSearchDue(text))]


def search_now(model: Model) -> Step:
    """Ask for the input's text now (at most 100 results, the host's include / exclude)."""
    state = model.directory
    query = state.search_text.strip()
    seq = state.search_seq + 1
    args = query_args(model, page=1, entries=SEARCH_ENTRIES, search=query, exclude=model.options.excludeWalletIds)
    state = replace(state, search_query=query, searching=True, search_seq=seq)
    return replace(model, directory=state), [directory_call(args, f"search:{seq}")]


def on_search_due(model: Model, msg: WalletSearchDue, now: int) -> Step:
    if msg.value != model.directory.search_text or not msg.value.strip():
        return model, []
    return search_now(model)
