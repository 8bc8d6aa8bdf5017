"""WalletSend: the send form (token from the visitor's balances, amount with max and its fiat
value, receiver address), then a preview."""

from __future__ import annotations

from ..slices.model import Model
from ..rules.format import floor3, usd
from ..slices.send import (
    PressedSendMax,
    PressedSendPreview,
    PressedSendTokenPicker,
    SelectedSendToken,
    change_amount,
    change_receiver,
    fiat_value,
    selected_token,
    token_key,
    tokens,
)
from ..wire.nodes import Node, node
from . import parts
from .send_preview import lost_request

TITLE = "Send"


def body(model: Model) -> Node:
    state = model.send
    children = [_token_row(model)]
    if state.picking:
        children.append(_token_list(model))
    fiat = fiat_value(model)
    children += [
        parts.row("send/amount-row", [
            node("input", "send/amount", on={"change": change_amount}, value=state.amount, placeholder="0",
                 kind="amount", label="Amount"),
            node("button", "send/max", on={"press": PressedSendMax()}, text="Max", variant="ghost",
                 label="Send the whole balance"),
        ]),
        node("text", "send/fiat", text=fiat or "", variant="small", tone="muted", hidden=None if fiat else True),
        node("input", "send/receiver", on={"change": change_receiver}, value=state.receiver,
             placeholder="Type or paste address", kind="address", label="Receiver address"),
    ]
    if state.error:
        children.append(node("text", "send/error", text=state.error, variant="small", tone="error"))
    lost = lost_request(model, "send")
    if lost is not None:
        children.append(lost)
    children.append(node("button", "send/preview", on={"press": PressedSendPreview()}, text="Preview send",
                         variant="main"))
    return parts.column("send/body", children, gap=12)


def _token_row(model: Model) -> Node:
    token = selected_token(model)
    if token is None:
        return node("list-item", "send/token", on={"press": PressedSendTokenPicker()}, title="Select token",
                    icon="wallet", chevron=True)
    return node("list-item", "send/token", on={"press": PressedSendTokenPicker()}, title=token.symbol,
                subtitle=f"Balance: {floor3(token.quantity_numeric)} {token.symbol}",
                image=token.icon_url or None, chevron=True)


def _token_list(model: Model) -> Node:
    rows = []
    for token in tokens(model):
        key = token_key(token)
        rows.append(node(
            "list-item", f"send/token/{key}", on={"press": SelectedSendToken(key)}, title=token.name,
            subtitle=f"{floor3(token.quantity_numeric)} {token.symbol}", image=token.icon_url or None,
            trailing=usd(token.value) if token.price else None,
        ))
    if not rows and model.balances.loading:
        rows = [node("skeleton", f"send/tokens/skeleton/{i}", w=312, h=56) for i in range(3)]
    elif not rows:
        rows = [node("text", "send/tokens/empty", text="No tokens on this network", variant="small",
                     tone="muted")]
    return parts.column("send/tokens", rows)
