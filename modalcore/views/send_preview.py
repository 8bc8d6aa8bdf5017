"""WalletSendPreview: what will be sent, to whom, on which network, for which network fee; then
Send (one wallet request), or, when that request was lost, Try again / Discard."""

from __future__ import annotations

from decimal import Decimal

from ..slices.model import Model
from ..rules.format import amount_with_symbol, network_fee, review_amount
from ..slices.navigation import PressedBack
from ..slices.send_form import fiat_value, receiver_address, selected_token
from ..slices.smart_account import SPONSORED_FEE, fee_sponsored
from ..slices.send_tx import PressedDiscardSend, PressedRetrySend, PressedSend
from ..slices.accounts import TokenBalance
from ..wire.nodes import Node, node
from . import parts
from .wallet_prompt import prompt

TITLE = "Review send"
LOST_HINT = "Check your wallet's activity before trying again."


def fee_text(model: Model) -> str | None:
    fee = model.send.fee
    network = model.networks.active_network
    if fee.fee_wei is None or network is None:
        return None
    amount = Decimal(fee.fee_wei).scaleb(-network.native.decimals)
    return network_fee(amount, network.native_price, network.native.symbol)


def lost_request(model: Model, prefix: str) -> Node | None:
    pending = model.send.pending
    if pending is None or pending.status != "lost":
        return None
    return node("stack", f"{prefix}/lost", [
        node("alert", f"{prefix}/lost/alert", title="Wallet request lost",
             message=f"{pending.reason}. {LOST_HINT}", variant="warning"),
        parts.row(f"{prefix}/lost/actions", [
            node("button", f"{prefix}/lost/discard", on={"press": PressedDiscardSend()}, text="Discard",
                 variant="secondary"),
            node("button", f"{prefix}/lost/retry", on={"press": PressedRetrySend()},
                 pending={"press": "spinner"}, text="Try again", variant="main"),
        ], justify="center"),
    ], dir="col", gap=8)


def send_icon(token: TokenBalance) -> str:
    return parts.token_image(token.symbol, token.icon_url, token.address or f"native:{token.symbol}")


def body(model: Model) -> Node:
    state = model.send
    token = selected_token(model)
    account = model.accounts.get(model.networks.active_namespace)
    network = model.networks.active_network
    symbol = token.symbol if token else ""
    fiat = fiat_value(model)
    fee = state.fee
    fee_value: Node
    if fee_sponsored(model):
        fee_value = node("text", "send-preview/fee/value", text=SPONSORED_FEE, variant="small", tone="success")
    elif fee.loading:
        fee_value = node("skeleton", "send-preview/fee/value", w=80, h=16)
    else:
        fee_value = node("text", "send-preview/fee/value", text=fee_text(model) or "—", variant="small")
    summary = node("stack", "send-preview/summary", [
        parts.row("send-preview/amount-row", [
            node("image", "send-preview/token", src=send_icon(token) if token else "", alt=symbol, size=36,
                 round=True),
            node("text", "send-preview/amount", text=amount_with_symbol(review_amount(state.amount), symbol),
                 variant="amount"),
        ], gap=10, justify="center"),
        node("text", "send-preview/fiat", text=fiat or "", variant="body", tone="muted",
             hidden=None if fiat else True),
    ], dir="col", gap=6, align="center", pad=12)
    children = [
        summary,
        node("list-item", "send-preview/from", title="From", subtitle=account.profile_name,
             trailing=parts.truncate_address(account.address or "")),
        node("list-item", "send-preview/to", title="To", subtitle=state.receiver_profile_name,
             trailing=parts.truncate_address(receiver_address(state) or state.receiver)),
        node("list-item", "send-preview/network", title="Network", image=parts.network_image(network)
             if network else None, trailing=network.name if network else ""),
        parts.row("send-preview/fee", [
            node("text", "send-preview/fee/label", text="Network fee", variant="small", tone="muted"),
            fee_value,
        ], justify="between"),
    ]
    if fee.error:
        children.append(node("text", "send-preview/fee/error", text=fee.error, variant="small", tone="error"))
    if state.error:
        children.append(node("text", "send-preview/error", text=state.error, variant="small", tone="error"))
    lost = lost_request(model, "send-preview")
    if lost is not None:
        children.append(lost)
    else:
        children.append(parts.row("send-preview/actions", [
            node("button", "send-preview/cancel", on={"press": PressedBack()}, text="Cancel",
                 variant="secondary"),
            node("button", "send-preview/send", on={"press": PressedSend()}, pending={"press": "spinner"},
                 text="Send", variant="main", busy=True if state.loading else None,
                 disabled=True if state.loading or state.pending is not None else None),
        ], justify="center"))
        if state.pending is not None and state.pending.status == "waiting":
            children += prompt(model, "send-preview")
    return parts.column("send-preview/body", children, gap=12)
