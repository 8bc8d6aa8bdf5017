"""The Activity tab of the Account view: skeletons while the first page loads, then the
account's transactions grouped by year and month (newest first); the end of the list asks for
the next page (`more`)."""

from __future__ import annotations

from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from ..slices.model import Model
from ..slices.names import shown_name
from ..slices.history import RequestedMoreHistory, Transaction, Transfer, time_zone, by_year_and_month
from ..wire.nodes import Node, node
from . import parts

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
TITLES = {"send": "Sent", "receive": "Received", "trade": "Swapped", "buy": "Bought"}
PROVIDERS = {"coinbase": "Coinbase", "local": "Local onramp"}  # who an onramp purchase went through
# Coinbase onramp statuses (the hosted history's onramp transactions) as Activity statuses
ONRAMP_STATUS = {"ONRAMP_TRANSACTION_STATUS_SUCCESS": "confirmed",
                 "ONRAMP_TRANSACTION_STATUS_IN_PROGRESS": "pending",
                 "ONRAMP_TRANSACTION_STATUS_FAILED": "failed"}
SKELETONS = 3

# (upper bound in seconds, unit seconds, singular label, plural format): abbreviated labels
# (behaviour.md §9: min, hr, d, mo, yr) with dayjs's relative-time thresholds.
_MINUTE, _HOUR, _DAY = 60, 3600, 86400
JUST_NOW = "just now"
_MONTH = 30.4375 * _DAY
_YEAR = 365.25 * _DAY


def relative_time(mined_at: int, now_ms: int) -> str:
    """How long ago, abbreviated: 'just now' (under 45 s, dayjs's "a few seconds": a count of
    seconds would read '0 sec' and go stale at once), '1 min', '5 min', '1 hr', '3 hrs', '1 d',
    '4 d', '1 mo', '5 mo', '1 yr', '2 yr'."""
    seconds = max(0, now_ms // 1000 - mined_at)
    if seconds < 45:
        return JUST_NOW
    if seconds < 90:
        return "1 min"
    if seconds < 45 * _MINUTE:
        return f"{round(seconds / _MINUTE)} min"
    if seconds < 90 * _MINUTE:
        return "1 hr"
    if seconds < 22 * _HOUR:
        return f"{round(seconds / _HOUR)} hrs"
    if seconds < 36 * _HOUR:
        return "1 d"
    if seconds < 26 * _DAY:
        return f"{round(seconds / _DAY)} d"
    if seconds < 46 * _DAY:
        return "1 mo"
    months = round(seconds / _MONTH)
    if months < 11:
        return f"{max(2, months)} mo"
    if seconds < 18 * _MONTH:
        return "1 yr"
    return f"{max(2, round(seconds / _YEAR))} yr"


def quantity3(numeric: str) -> str:
    """behaviour.md §9: transaction quantities with 3 decimals (rounded, thousands separated)."""
    try:
        value = Decimal(numeric)
    except InvalidOperation:
        return numeric
    return f"{value.quantize(Decimal('0.001'), rounding=ROUND_HALF_UP):,f}"


def group_title(year: int, month: int, current_year: int) -> str:
    name = MONTHS[month]
    return name if year == current_year else f"{name} {year}"


def _display_address(model: Model, address: str) -> str:
    """A counterparty: its name when one is known (slices/names.py), else the truncated address."""
    return shown_name(model, address) or parts.truncate_address(address)


def _token_icon(model: Model, transfer: Transfer | None) -> str | None:
    """The token a row moved, drawn as the Tokens tab draws it: its icon, else the same monogram
    (same seed, so the same colour) when the account holds it, else a monogram of its symbol."""
    if transfer is None or not transfer.symbol:
        return (transfer.icon_url or None) if transfer else None
    tokens = model.accounts.get(model.networks.active_namespace).token_balance
    held = next((t for t in tokens if t.symbol == transfer.symbol), None)
    seed = (held.address or f"native:{held.symbol}") if held else transfer.symbol
    return parts.token_image(transfer.symbol, transfer.icon_url or (held.icon_url if held else ""), seed,
                             known=held is not None)


def _trade(model: Model, tx: Transaction, now_ms: int) -> Node | None:
    """A swap is one entry with both legs: what went out (subtitle) and what came in (amount)."""
    out = next((t for t in tx.transfers if t.direction == "out"), None)
    came = next((t for t in tx.transfers if t.direction == "in"), None)
    if out is None or came is None:
        return None
    return node("activity-item", f"account/activity/tx/{tx.id}", title=TITLES["trade"],
                subtitle=f"-{quantity3(out.quantity)} {out.symbol}", time=relative_time(tx.mined_at, now_ms),
                amount=f"+{quantity3(came.quantity)} {came.symbol}", status=tx.status or "confirmed",
                image=_token_icon(model, came))


def _purchase(model: Model, tx: Transaction, now_ms: int) -> Node:
    """An onramp purchase: what was bought, and through which provider."""
    bought = next((t for t in tx.transfers if t.direction == "in"), tx.transfers[0] if tx.transfers else None)
    amount = f"+{quantity3(bought.quantity)} {bought.symbol}" if bought else ""
    return node("activity-item", f"account/activity/tx/{tx.id}", title=TITLES["buy"],
                subtitle=PROVIDERS.get(tx.onramp or "", (tx.onramp or "").capitalize()), time=relative_time(tx.mined_at, now_ms),
                amount=amount, status=ONRAMP_STATUS.get(tx.status, tx.status or "confirmed"),
                image=_token_icon(model, bought))


def _item(model: Model, tx: Transaction, now_ms: int) -> Node:
    trade = _trade(model, tx, now_ms) if tx.operation_type == "trade" else None
    if trade is not None:
        return trade
    if tx.onramp:
        return _purchase(model, tx, now_ms)
    transfer = tx.transfers[0] if tx.transfers else None
    direction = transfer.direction if transfer else ""
    if direction == "in":
        subtitle = f"From {_display_address(model, tx.sent_from)}"
    else:
        subtitle = f"To {_display_address(model, tx.sent_to)}"
    sign = {"in": "+", "out": "-"}.get(direction, "")
    amount = f"{sign}{quantity3(transfer.quantity)} {transfer.symbol}".strip() if transfer else ""
    title = TITLES.get(tx.operation_type, tx.operation_type.capitalize() or "Transaction")
    return node("activity-item", f"account/activity/tx/{tx.id}", title=title, subtitle=subtitle,
                time=relative_time(tx.mined_at, now_ms), amount=amount, status=tx.status or "confirmed",
                image=_token_icon(model, transfer))


def _skeletons(prefix: str, count: int) -> list[Node]:
    return [node("skeleton", f"{prefix}/{i}", w=312, h=56) for i in range(count)]


def activity(model: Model) -> Node:
    state = model.history
    account = model.accounts.get(model.networks.active_namespace)
    network = model.networks.active_network
    current = (state.account == account.caip_address and network is not None
               and state.last_network_in_view == network.id)
    more = {"more": RequestedMoreHistory()}
    if not current or (not state.loaded and not state.transactions):
        return node("stack", "account/activity", _skeletons("account/activity/skeleton", SKELETONS),
                    on=more, dir="col", gap=8)
    if not state.transactions:
        return node("stack", "account/activity", [
            node("icon", "account/activity/icon", name="activity", size=32, tone="muted"),
            node("text", "account/activity/text", text="No activity yet", variant="small", tone="muted"),
        ], dir="col", gap=8, align="center", pad=16)
    zone = time_zone(model.env.timezone)
    current_year = datetime.fromtimestamp(state.now // 1000, zone).year
    groups: list[Node] = []
    for year, months in by_year_and_month(state.transactions, model.env.timezone):
        for month, txs in months:
            groups.append(node("group", f"account/activity/group/{year}-{month + 1:02d}",
                               [_item(model, tx, state.now) for tx in txs],
                               title=group_title(year, month, current_year)))
    if state.loading:
        groups += _skeletons("account/activity/loading", 1)
    return node("stack", "account/activity", groups, on=more if state.next else None, dir="col", gap=12)
