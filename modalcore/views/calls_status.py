"""CallsStatus (issue 32 item 4): what `wallet_showCallsStatus` opens, the status of one EIP-5792
batch of the embedded smart account (pending, confirmed, failed), read from the chain's bundler
(flows/calls.py; again every few seconds while pending), with the transaction that included it."""

from __future__ import annotations

from ..rules import calls as rules
from ..slices.calls import PressedRefreshCallsStatus
from ..slices.model import Model
from ..wire.nodes import Node, node
from . import parts

TITLE = "Calls status"
READS = ("calls", "networks")


def _state(status: int | None, failed: bool) -> tuple[str, str, str]:
    """(icon, tone, text) for the batch's last known status."""
    if status == rules.CONFIRMED:
        return "success", "success", "Calls confirmed"
    if status in (rules.REVERTED, rules.OFFCHAIN_FAILURE):
        return "error", "error", "Calls failed"
    if failed:
        return "warning", "muted", "Status unavailable"
    return "activity", "muted", "Calls pending"


def body(model: Model) -> Node:
    shown = model.calls.shown
    if shown is None:
        return parts.column("calls-status/body", [node("spinner", "calls-status/waiting", size=32)])
    icon, tone, text = _state(shown.status, shown.failed)
    network = model.networks.get(shown.chain)
    children = [
        node("spinner", "calls-status/spinner", size=40) if shown.status is None and not shown.failed
        else node("icon", "calls-status/icon", name=icon, size=40, tone=tone),
        node("text", "calls-status/state", text=text, variant="label"),
        node("text", "calls-status/network", text=network.name if network else shown.chain, variant="small", tone="muted"),
        node("text", "calls-status/id", text=parts.truncate_address(shown.calls_id), variant="small", tone="muted"),
    ]
    if shown.transaction_hash:
        children.append(node("text", "calls-status/tx", text=parts.truncate_address(shown.transaction_hash),
                             variant="small"))
    children.append(parts.row("calls-status/actions", [
        node("button", "calls-status/refresh", on={"press": PressedRefreshCallsStatus()}, text="Refresh",
             variant="secondary", icon="refresh", disabled=shown.reading),
    ], justify="center"))
    return node("stack", "calls-status/body", children, dir="col", gap=12, align="center", pad=16)
