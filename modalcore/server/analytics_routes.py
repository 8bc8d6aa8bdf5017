"""The operator's analytics page: counts per event and per day, from the engine's own store
(`GET /operator/analytics` as HTML with a chart, `GET /v1/analytics/counts` as JSON), behind the
operator token like the audit log. A browser without the token gets the sign-in form there.

Both take `from` and `to` (UTC days, `YYYY-MM-DD`, inclusive) and `project` (one project's
events); the page has a form for them and a Sign out button (server/operator_logout.py). A
filter that is not one answers 400 and shows nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from html import escape

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..analytics.events import DOCTOR
from .config import EngineConfig
from .operator import refuse_operator
from .operator_login import login_page
from ..analytics.chart import day_chart
from ..store.base import SessionStore

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_PROJECT_CHARS = 128
STYLE = (
    "body{font:14px system-ui;margin:2em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
    "td:first-child,td:nth-child(2){text-align:left}"
    "figure{margin:0 0 1.5em}figcaption{display:flex;flex-wrap:wrap;gap:.3em 1em;font-size:12px}"
    "figcaption i{display:inline-block;width:.8em;height:.8em;margin-right:.3em}"
    "header{display:flex;gap:1em;align-items:end;flex-wrap:wrap;margin-bottom:1em}"
    "header form{display:flex;gap:.6em;align-items:end;flex-wrap:wrap}"
    "label{display:flex;flex-direction:column;font-size:12px;gap:.2em}.bad{color:#b3261e}"
)


@dataclass(frozen=True)
class CountsFilter:
    first: str = ""  # the first day shown (inclusive), "" from the start
    last: str = ""  # the last day shown (inclusive), "" up to today
    project: str = ""  # "" every project

    def keeps(self, project: str, day: str) -> bool:
        return ((not self.project or project == self.project) and (not self.first or day >= self.first)
                and (not self.last or day <= self.last))


def read_filter(params: QueryParams) -> CountsFilter | str:
    """The filter the query asks for, or why it is not one."""
    first, last = params.get("from", ""), params.get("to", "")
    project = params.get("project", "")
    for name, value in (("from", first), ("to", last)):
        if value and not _valid_day(value):
            return f"{name} must be a day, YYYY-MM-DD"
    if first and last and first > last:
        return "from must not be after to"
    if len(project) > MAX_PROJECT_CHARS:
        return "project is too long"
    return CountsFilter(first, last, project)


def _valid_day(text: str) -> bool:
    if not _DAY.match(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


async def _counts(request: Request, chosen: CountsFilter) -> list[tuple[str, str, str, int]]:
    store: SessionStore = request.app.state.store
    return [row for row in await store.analytics.counts() if chosen.keeps(row[0], row[1])]


async def counts_json(request: Request) -> Response:
    refused = refuse_operator(request)
    if refused is not None:
        return refused
    chosen = read_filter(request.query_params)
    if isinstance(chosen, str):
        return JSONResponse({"error": "bad_filter", "message": chosen}, status_code=400)
    rows = await _counts(request, chosen)
    return JSONResponse({"counts": [{"project": p, "day": d, "event": e, "count": n}
                                    for p, d, e, n in rows]})


def _controls(config: EngineConfig, chosen: CountsFilter, seen: set[str]) -> str:
    projects = sorted(set(config.projects) | seen | ({chosen.project} if chosen.project else set()))
    options = "<option value=''>All projects</option>" + "".join(
        f"<option value='{escape(p)}'{' selected' if p == chosen.project else ''}>"
        f"{escape(config.projects[p].name or p) if p in config.projects else escape(p)}</option>"
        for p in projects)
    return (
        "<header><form method='get' action='/operator/analytics' aria-label='Filter'>"
        f"<label>From<input type='date' name='from' value='{escape(chosen.first)}'></label>"
        f"<label>To<input type='date' name='to' value='{escape(chosen.last)}'></label>"
        f"<label>Project<select name='project'>{options}</select></label>"
        "<button type='submit'>Show</button></form>"
        "<form method='post' action='/operator/logout'><button type='submit'>Sign out</button></form>"
        "</header>"
    )


def _page(body: str, status: int = 200) -> HTMLResponse:
    page = ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Analytics</title>"
            f"<style>{STYLE}</style></head><body><h1>Events per day</h1>{body}</body></html>")
    # the Sign out form's post must carry its Origin (as the sign-in form's: operator_login.py)
    return HTMLResponse(page, status_code=status, headers={"Referrer-Policy": "same-origin"})


async def counts_page(request: Request) -> Response:
    refused = refuse_operator(request)
    if refused is not None:
        return login_page(request) if refused.status_code == 401 else refused
    config: EngineConfig = request.app.state.config
    chosen = read_filter(request.query_params)
    if isinstance(chosen, str):
        return _page(f"{_controls(config, CountsFilter(), set())}<p role='alert' class='bad'>"
                     f"{escape(chosen)}</p>", status=400)
    rows = await _counts(request, chosen)
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
    filtered = chosen != CountsFilter()
    empty = "" if rows else ("<p>No events match.</p>" if filtered else "<p>No events yet.</p>")
    return _page(
        f"{_controls(config, chosen, {p for p, _ in keys})}{day_chart(rows)}"
        f"<table><thead><tr><th>project</th><th>event</th>{head}<th>total</th></tr></thead>"
        f"<tbody>{body}</tbody></table>{empty}{_failures(rows)}")


def _failures(rows: list[tuple[str, str, str, int]]) -> str:
    """The session doctor's counts (`DOCTOR <flow> <cause> <wallet>` events, issue 44) per
    project, flow, cause and wallet, a column per day."""
    kept = [(p, d, e.split(" ", 3)[1:], n) for p, d, e, n in rows
            if e.startswith(DOCTOR + " ") and len(e.split(" ", 3)) == 4]
    if not kept:
        return ""
    days = sorted({day for _, day, _, _ in kept})
    cells: dict[tuple[str, str, str, str, str], int] = {}
    for project, day, (flow, cause, wallet), n in kept:
        cells[(project, flow, cause, wallet, day)] = cells.get((project, flow, cause, wallet, day), 0) + n
    keys = sorted({key[:4] for key in cells})
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(part)}</td>" for part in key)
        + "".join(f"<td>{cells.get((*key, day), 0)}</td>" for day in days)
        + f"<td>{sum(cells.get((*key, day), 0) for day in days)}</td></tr>" for key in keys)
    head = "".join(f"<th>{escape(day)}</th>" for day in days)
    return ("<h2 id='failures'>Failures by cause and wallet</h2>"
            "<table><thead><tr><th>project</th><th>flow</th><th>cause</th><th>wallet</th>"
            f"{head}<th>total</th></tr></thead><tbody>{body}</tbody></table>")


def routes() -> list[Route]:
    return [Route("/operator/analytics", counts_page), Route("/v1/analytics/counts", counts_json)]
