"""The swap token list and the form's owner: the Swap view shown on an EVM network whose swap
token list is not known asks service `swap_tokens` for it (which also says whether the network
has swaps at all, behaviour.md §8); a new network or account starts a new form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ..core.cmds import CancelTimer, Cmd, Reply
from ..core.evolve import replace
from .swap_form import SwapState, SwapToken, with_swap
from .swap_quote import QUOTE_TIMER
from ..services.domain.handles import SWAP_TOKENS

if TYPE_CHECKING:
    from .model import Model, Step


class _ListedToken(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    address: str
    symbol: str
    name: str
    decimals: int
    icon: str = ""


class TokensAnswer(BaseModel):
    """What service `swap_tokens` returns."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    tokens: list[_ListedToken] = []
    supported: bool = True  # false: the network has no swaps (behaviour.md §8)


@dataclass(frozen=True)
class SwapTokensFetched(Reply):
    """The swap token list of network `key` came back (or the network has no swaps)."""

    result: TokensAnswer | None = None


def on_tokens(model: Model, msg: SwapTokensFetched, now: int) -> Step:
    if msg.key != model.networks.active or model.swap.listed_for != f"loading:{msg.key}":
        return model, []
    if msg.result is None:  # the list is unknown: the form goes on with the configured tokens
        return with_swap(model, listed_for=msg.key, not_supported=False), []
    if not msg.result.supported:
        return with_swap(model, listed_for=msg.key, not_supported=True), []
    listed = tuple(SwapToken(t.address, t.symbol, t.name, t.decimals, None, None, t.icon)
                   for t in msg.result.tokens)
    return with_swap(model, listed_for=msg.key, listed=listed, not_supported=False), []


def observe(before: Model, after: Model, now: int) -> Step:
    """A new network or account starts a new form (a waiting wallet request stays known). The
    Swap view shown on an EVM network whose swap token list is not known asks for it (which
    also says whether the network has swaps at all)."""
    cmds: list[Cmd] = []
    if not before.owns_drafts_of(after):
        pending, loading = after.swap.pending, after.swap.loading
        cmds = [CancelTimer(QUOTE_TIMER)] if after.swap.quoting else []
        after = replace(after, swap=SwapState(pending=pending, loading=loading))
    active = after.networks.active
    state = after.swap
    if (after.router.view == "Swap" and active is not None and after.networks.active_namespace == "eip155"
            and state.listed_for not in (active, f"loading:{active}")):
        after = with_swap(after, listed_for=f"loading:{active}")
        cmds.append(SWAP_TOKENS.call(SWAP_TOKENS.args(network=active), SwapTokensFetched, active))
    return after, cmds
