"""GET /dev/mail in `demo` mode (issue 15 §6): the mail the local SMTP server received, newest
first, so a person trying the demo can read their sign-in code. Never mounted by `serve`."""

from __future__ import annotations

import html

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from modalcore_dev.devmail import Mailbox

PATH = "/dev/mail"


def mail_route(mailbox: Mailbox) -> Route:
    async def page(request: Request) -> Response:
        items = "".join(
            f"<article><h2>{html.escape(m.subject)}</h2><p class=meta>to {html.escape(', '.join(m.recipients))}"
            f" · from {html.escape(m.sender)}</p><pre>{html.escape(m.body)}</pre></article>"
            for m in reversed(mailbox.all()))
        body = (
            "<!doctype html><html lang=en><head><meta charset=utf-8><meta http-equiv=refresh content=2>"
            "<title>Demo mailbox</title><style>body{font:15px/1.5 system-ui,sans-serif;max-width:720px;"
            "margin:24px auto;padding:0 16px}article{border:1px solid #8884;border-radius:12px;padding:12px;"
            "margin:12px 0}pre{white-space:pre-wrap;font-size:16px}.meta{opacity:.7;font-size:13px}</style>"
            f"</head><body><h1>Demo mailbox</h1><p>Mail the engine sent (refreshes every 2 s).</p>"
            f"{items or '<p>No mail yet: enter an email in the modal.</p>'}</body></html>")
        return HTMLResponse(body, headers={"Cache-Control": "no-store"})

    return Route(PATH, page, methods=["GET"])
