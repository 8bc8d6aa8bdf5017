"""SwapPreview: what is paid and what comes back at least, the quote's details, then Approve
(when the allowance is short) or Swap: each a wallet request, one at a time. A request lost with
a reload is shown lost with Try again / Discard."""

from __future__ import annotations

from ..rules.format import review_amount
from ..slices.model import Model
from ..slices.navigation import PressedBack
from ..slices.swap_form import current_quote, token
from ..slices.swap_tx import PressedDiscardSwap, PressedRetrySwap, PressedSwapConfirm
from ..wire.nodes import Node, node
from . import parts
from .wallet_prompt import prompt
from .send_preview import LOST_HINT
from .swap import details, token_icon, units_text

TITLE = "Review swap"
STEPS = {"approve": "Approve {symbol} in your wallet", "approving": "Waiting for the approval…",
         "swap": "Confirm the swap in your wallet"}


def _lost(model: Model) -> Node | None:
    pending = model.swap.pending
    if pending is None or pending.status != "lost":
        return None
    return node("stack", "swap-preview/lost", [
        node("alert", "swap-preview/lost/alert", title="Wallet request lost",
             message=f"{pending.reason}. {LOST_HINT}", variant="warning"),
        parts.row("swap-preview/lost/actions", [
            node("button", "swap-preview/lost/discard", on={"press": PressedDiscardSwap()}, text="Discard",
                 variant="secondary"),
            node("button", "swap-preview/lost/retry", on={"press": PressedRetrySwap()},
                 pending={"press": "spinner"}, text="Try again", variant="main"),
        ], justify="center"),
    ], dir="col", gap=8)


def body(model: Model) -> Node:
    state = model.swap
    source, target = token(model, state.from_token), token(model, state.to_token)
    quote = current_quote(model)
    pending = state.pending
    rows: list[Node] = []
    if source is not None:
        rows.append(node("list-item", "swap-preview/pay", title="You pay", image=token_icon(source),
                         trailing=f"{review_amount(state.amount)} {source.symbol}"))
    if target is not None and quote is not None:
        rows.append(node("list-item", "swap-preview/receive", title="You receive", image=token_icon(target),
                         trailing=f"{units_text(quote.amount_out, target.decimals)} {target.symbol}"))
    children = [*rows, *details(model, "swap-preview/details")]
    if state.error:
        children.append(node("text", "swap-preview/error", text=state.error, variant="small", tone="error"))
    if pending is not None and pending.status == "waiting":
        text = STEPS[pending.step].format(symbol=source.symbol if source else "")
        children.append(node("text", "swap-preview/step", text=text, variant="small", tone="muted"))
        if pending.step != "approving":  # a request in the wallet (not the approval's confirmation)
            children += prompt(model, "swap-preview")
    lost = _lost(model)
    if lost is not None:
        children.append(lost)
        return parts.column("swap-preview/body", children, gap=12)
    needs_approval = quote is not None and quote.approve is not None and (pending is None or pending.step == "approve")
    action = f"Approve {source.symbol} and swap" if needs_approval and source is not None else "Swap"
    busy = state.loading or pending is not None
    children.append(parts.row("swap-preview/actions", [
        node("button", "swap-preview/cancel", on={"press": PressedBack()}, text="Cancel", variant="secondary"),
        node("button", "swap-preview/confirm", on={"press": PressedSwapConfirm()}, pending={"press": "spinner"},
             text=action, variant="main", busy=True if busy else None,
             disabled=True if busy or quote is None else None),
    ], justify="center"))
    return parts.column("swap-preview/body", children, gap=12)
