"""WalletSend: the send form (token from the visitor's balances, amount with its symbol, max and
its fiat value, receiver address), then a preview. Every token row draws the token's icon (or its
monogram); an amount above the balance says so while it is typed."""

from __future__ import annotations

from ..slices.model import Model
from ..rules.format import floor3, usd
from ..slices.send_fee import PressedSendMax, PressedSendPreview
from ..slices.send_form import (
    INSUFFICIENT_FUNDS,
    PressedSendTokenPicker,
    SelectedSendToken,
    change_amount,
    change_receiver,
    fiat_value,
    selected_token,
    to_units,
    token_key,
    tokens,
)
from ..slices.accounts import TokenBalance
from ..wire.nodes import Node, node
from . import parts
from .send_preview import lost_request, send_icon

TITLE = "Send"


def body(model: Model) -> Node:
    state = model.send
    children = [_token_row(model)]
    if state.picking:
        children.append(_token_list(model))
    token = selected_token(model)
    fiat = fiat_value(model) or ("$0.00" if token is not None and token.price else None)
    amount_error = _amount_error(token, state.amount)
    children += [
        parts.row("send/amount-row", [
            node("input", "send/amount", on={"change": change_amount}, value=state.amount, placeholder="0",
                 kind="amount", label="Amount", unit=token.symbol if token else None,
                 invalid=True if amount_error else None),
            node("button", "send/max", on={"press": PressedSendMax()}, text="Max", variant="accent",
                 label="Max, send the whole balance"),
        ]),
        node("text", "send/fiat", text=fiat or "", variant="small", tone="muted", hidden=None if fiat else True),
        node("input", "send/receiver", on={"change": change_receiver}, value=state.receiver,
             placeholder="Type or paste address", kind="address", label="Receiver address"),
    ]
    resolved = _resolved_receiver(model)
    if resolved is not None:
        children.append(resolved)
    error = state.error or amount_error  # the last refusal, else what is wrong while typing
    if error:
        children.append(node("text", "send/error", text=error, variant="small", tone="error"))
        if state.error:
            children += parts.support_code(model, "send", "send")
    lost = lost_request(model, "send")
    if lost is not None:
        children.append(lost)
    missing = _missing(model)
    children.append(node("button", "send/preview", on={"press": PressedSendPreview()},
                         text=missing or "Preview send", variant="main", disabled=True if missing else None))
    return parts.column("send/body", children, gap=12)


def _missing(model: Model) -> str | None:
    """What the form still lacks, as AppKit's send button says it ('Select Token', 'Add Amount',
    'Add Address'; here 'Select a token', apart from the picker row's 'Select token') while it is
    disabled. A press that arrives anyway is refused with behaviour.md §5's
    messages (slices/send_form.problem)."""
    state = model.send
    if selected_token(model) is None:
        return "Select a token"
    if not state.amount.strip():
        return "Add amount"
    if not state.receiver.strip():
        return "Add address"
    return None


def _resolved_receiver(model: Model) -> Node | None:
    """A receiver typed as a name: the address it resolved to (shown before anything is
    signed), or that it is being resolved."""
    state = model.send
    name = state.receiver.lower()
    if state.resolving:
        return node("text", "send/receiver-resolving", text=f"Resolving {name}", variant="small", tone="muted")
    if state.receiver_address and state.receiver_profile_name:
        return node("text", "send/receiver-address", text=state.receiver_address, variant="mono")
    return None


def _amount_error(token: TokenBalance | None, amount: str) -> str | None:
    """'Insufficient funds' as soon as a well-formed amount exceeds the balance (behaviour.md §5's
    message; the preview refuses it with the same words)."""
    if token is None or not amount.strip():
        return None
    decimals = int(token.quantity_decimals)
    units = to_units(amount, decimals)
    balance = to_units(token.quantity_numeric, decimals) or 0
    return INSUFFICIENT_FUNDS if units is not None and units > balance else None


def icon(token: TokenBalance) -> str:
    return send_icon(token)


def _token_row(model: Model) -> Node:
    token = selected_token(model)
    if token is None:
        return node("list-item", "send/token", on={"press": PressedSendTokenPicker()}, title="Select token",
                    icon="wallet", chevron=True)
    return node("list-item", "send/token", on={"press": PressedSendTokenPicker()}, title=token.symbol,
                subtitle=f"Balance: {floor3(token.quantity_numeric)} {token.symbol}",
                image=icon(token), chevron=True)


def _token_list(model: Model) -> Node:
    rows = []
    for token in tokens(model):
        key = token_key(token)
        rows.append(node(
            "list-item", f"send/token/{key}", on={"press": SelectedSendToken(key)}, title=token.name,
            subtitle=f"{floor3(token.quantity_numeric)} {token.symbol}", image=icon(token),
            trailing=usd(token.value) if token.price else None,
        ))
    if not rows and model.balances.loading:
        rows = [node("skeleton", f"send/tokens/skeleton/{i}", w=312, h=56) for i in range(3)]
    elif not rows:
        rows = [node("text", "send/tokens/empty", text="No tokens on this network", variant="small",
                     tone="muted")]
    return parts.column("send/tokens", rows)
