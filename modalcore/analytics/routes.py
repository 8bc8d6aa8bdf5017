"""The operator's analytics page: counts per event and per day, from the engine's own store
(`GET /operator/analytics` as HTML with a chart, `GET /v1/analytics/counts` as JSON), behind the
operator token like the audit log. A browser without the token gets the sign-in form there."""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..server.operator import refuse_operator
from ..server.operator_login import login_page
from .chart import day_chart
from ..store.base import SessionStore


async def _counts(request: Request) -> list[tuple[str, str, str, int]]:
    store: SessionStore = request.app.state.store
    return await store.event_counts()


async def counts_json(request: Request) -> Response:
    refused = refuse_operator(request)
    if refused is not None:
        return refused
    rows = await _counts(request)
    return JSONResponse({"counts": [{"project": p, "day": d, "event": e, "count": n}
                                    for p, d, e, n in rows]})


async def counts_page(request: Request) -> Response:
    refused = refuse_operator(request)
    if refused is not None:
        return login_page(request) if refused.status_code == 401 else refused
    rows = await _counts(request)
    days = sorted({day for _, day, _, _ in rows})
    keys = sorted({(project, event) for project, _, event, _ in rows})
    cells = {(p, d, e): n for p, d, e, n in rows}
    head = "".join(f"<th>{escape(day)}</th>" for day in days)
    body = "".join(
        f"<tr><td>{escape(project)}</td><td>{escape(event)}</td>"
        + "".join(f"<td>{cells.get((project, day, event), 0)}</td>" for day in days)
        + f"<td>{sum(cells.get((project, day, event), 0) for day in days)}</td></tr>"
        for project, event in keys
    )
    empty = "" if rows else "<p>No events yet.</p>"
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>Analytics</title>"
        "<style>body{font:14px system-ui;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
        "td:first-child,td:nth-child(2){text-align:left}"
        "figure{margin:0 0 1.5em}figcaption{display:flex;flex-wrap:wrap;gap:.3em 1em;font-size:12px}"
        "figcaption i{display:inline-block;width:.8em;height:.8em;margin-right:.3em}</style></head><body>"
        "<h1>Events per day</h1>"
        f"{day_chart(rows)}"
        f"<table><thead><tr><th>project</th><th>event</th>{head}<th>total</th></tr></thead>"
        f"<tbody>{body}</tbody></table>{empty}</body></html>"
    )
    return HTMLResponse(page)


def routes() -> list[Route]:
    return [Route("/operator/analytics", counts_page), Route("/v1/analytics/counts", counts_json)]
