"""The analytics page's chart: events per day as stacked bars (one colour per event), drawn as
inline SVG on the server (no script, no chart library)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from html import escape

MAX_DAYS = 90  # the most recent days drawn (the table below has them all)
MAX_SERIES = 8  # the most frequent events get a colour each; the rest are "other"
PALETTE = ("#3b6ef5", "#18a058", "#e0a100", "#d03050", "#8a4af3", "#0d9aa5", "#f26b1d",
           "#6b7280", "#a3a3a3")
WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 720, 240, 44, 36, 12


def _calendar(days: list[str]) -> list[str]:
    """Every day from the first to the last (a day without events is an empty slot, not
    skipped), the most recent MAX_DAYS; days that are not ISO dates are kept as they are."""
    try:
        first, last = date.fromisoformat(days[0]), date.fromisoformat(days[-1])
    except ValueError:
        return days[-MAX_DAYS:]
    span = min((last - first).days, MAX_DAYS - 1)
    return [(last - timedelta(days=back)).isoformat() for back in range(span, -1, -1)]


def day_chart(rows: Sequence[tuple[str, str, str, int]]) -> str:
    """`rows` are (project, day, event, count); the figure, or "" when there is nothing."""
    if not rows:
        return ""
    days = _calendar(sorted({day for _, day, _, _ in rows}))
    totals: dict[str, int] = {}
    for _, _, event, n in rows:
        totals[event] = totals.get(event, 0) + n
    named = sorted(totals, key=lambda e: (-totals[e], e))[:MAX_SERIES]
    series = [*named, "other"] if len(totals) > len(named) else named
    cells: dict[tuple[str, str], int] = {}
    for _, day, event, n in rows:
        key = (day, event if event in named else "other")
        cells[key] = cells.get(key, 0) + n
    peak = max(sum(cells.get((day, e), 0) for e in series) for day in days) or 1
    plot_w, plot_h = WIDTH - LEFT - 8, HEIGHT - BOTTOM - TOP
    slot = plot_w / len(days)
    bar = max(2.0, slot * 0.7)
    parts = [f"<line x1='{LEFT}' y1='{TOP + plot_h}' x2='{WIDTH - 8}' y2='{TOP + plot_h}' stroke='#999'/>",
             f"<text x='{LEFT - 6}' y='{TOP + 4}' text-anchor='end'>{peak}</text>",
             f"<text x='{LEFT - 6}' y='{TOP + plot_h}' text-anchor='end'>0</text>"]
    label_every = max(1, len(days) // 8)
    for i, day in enumerate(days):
        x = LEFT + i * slot + (slot - bar) / 2
        y = float(TOP + plot_h)
        for colour, event in zip(PALETTE, series):
            n = cells.get((day, event), 0)
            if not n:
                continue
            h = n / peak * plot_h
            y -= h
            parts.append(f"<rect x='{x:.1f}' y='{y:.1f}' width='{bar:.1f}' height='{h:.1f}' "
                         f"fill='{colour}'><title>{escape(day)} {escape(event)}: {n}</title></rect>")
        if i % label_every == 0:
            parts.append(f"<text x='{x + bar / 2:.1f}' y='{TOP + plot_h + 16}' "
                         f"text-anchor='middle'>{escape(day[5:])}</text>")
    legend = "".join(f"<span><i style='background:{colour}'></i>{escape(event)}</span>"
                     for colour, event in zip(PALETTE, series))
    return (f"<figure><svg role='img' aria-label='Events per day, {escape(days[0])} to "
            f"{escape(days[-1])}' viewBox='0 0 {WIDTH} {HEIGHT}' width='{WIDTH}' height='{HEIGHT}' "
            f"font-size='11' font-family='system-ui'>{''.join(parts)}</svg>"
            f"<figcaption>{legend}</figcaption></figure>")
