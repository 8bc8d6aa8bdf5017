"""The operator's error view (`GET /operator/errors`, beside the analytics page; behind the
operator token, a browser signs in as there): the unexpected errors this worker met while
sessions processed their inputs, grouped by cause and route (runtime/errorbook.py), with first
and last seen, a count, the last session it hit and how to replay that session (its recording,
when the engine records: `serve --record-dir`). `/metrics` counts the same groups for every
worker (`modalcore_errors_total{kind,route}`)."""

from __future__ import annotations

from datetime import datetime, timezone
from html import escape
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ..runtime.errorbook import ErrorBook
from .operator import refuse_operator
from .operator_login import login_page

STYLE = ("body{font:14px system-ui;margin:2em}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
         "td.n{text-align:right}code{font-size:12px}")


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _replay(record_dir: Path | None, session: str) -> str:
    if record_dir is None:
        return "not recorded (serve --record-dir DIR records sessions)"
    path = record_dir.resolve() / f"{session}.jsonl"
    return f"<code>python -m modalcore replay {escape(str(path))}</code>"


async def errors_page(request: Request) -> Response:
    refused = refuse_operator(request)
    if refused is not None:
        return login_page(request) if refused.status_code == 401 else refused
    book: ErrorBook = request.app.state.errors
    record_dir: Path | None = request.app.state.hub.record_dir
    rows = "".join(
        f"<tr><td>{escape(g.kind)}</td><td>{escape(g.route)}</td><td class='n'>{g.count}</td>"
        f"<td>{_when(g.first_ms)}</td><td>{_when(g.last_ms)}</td>"
        f"<td><code>{escape(g.last_session)}</code><br>{_replay(record_dir, g.last_session)}</td>"
        f"<td>{escape(g.message)}</td></tr>"
        for g in book.groups())
    body = (
        "<table><thead><tr><th>cause</th><th>route</th><th>count</th><th>first seen</th>"
        "<th>last seen</th><th>last session</th><th>last message</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>" if rows else "<p>No unexpected errors.</p>")
    dropped = (f"<p>{book.dropped} older groups were dropped (at most 200 are kept).</p>"
               if book.dropped else "")
    page = ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Errors</title>"
            f"<style>{STYLE}</style></head><body><h1>Unexpected errors</h1>"
            "<p>This worker's, since it started; <code>/metrics</code> counts every worker's "
            "(<code>modalcore_errors_total</code>). <a href='/operator/analytics'>Analytics</a></p>"
            f"{body}{dropped}</body></html>")
    return HTMLResponse(page)


def routes() -> list[Route]:
    return [Route("/operator/errors", errors_page)]
