"""The local onramp provider's page (demo mode, issue 16): `GET /onramp/local?order=…` shows the
order and a Complete purchase button; `POST /onramp/local/complete?order=…` transfers the bought
token to the destination wallet on the dev chain (once) and says so. Served only with
`devchain_proxy` and `public_url` set (`python -m modalcore_dev demo` sets both).

The purchase completes only from the order's own page (issue 27): its form carries a per-order
token (an HMAC of the order id under a key made when the routes are), and a POST whose `Origin`
is not the engine's or that the browser marks cross-site is refused, nothing sent."""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
from urllib.parse import parse_qs, urlsplit
from decimal import Decimal
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from modalcore.rules.rpc_errors import readable
from modalcore.services.backend.jsonrpc import RpcCallError
from modalcore.services.backend.onramp.provider import OnrampRefused
from modalcore_dev.onramp import LocalOnramp, Order
from modalcore.server.config import EngineConfig

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local onramp</title>
<style>body{{font:16px system-ui;background:#111;color:#eee;display:grid;place-items:center;min-height:90vh}}
main{{background:#1d1d1d;padding:24px 32px;border-radius:16px;min-width:320px}}
button{{font:inherit;padding:10px 18px;border-radius:10px;border:0;background:#3b82f6;color:#fff}}</style>
</head><body><main><h1>Local onramp</h1>{body}</main></body></html>"""


def local_onramp(config: EngineConfig) -> LocalOnramp | None:
    if not (config.devchain_proxy and config.public_url):
        return None
    networks: dict[str, dict[str, Any]] = {
        network_id: {"rpc": network.rpc[0], "name": network.name, "native_price": network.native_price,
                     "tokens": [t.model_dump() for t in network.tokens]}
        for network_id, network in config.networks.items() if network.dev
    }
    return LocalOnramp(config.public_url, networks)


def _order_text(order: Order) -> str:
    amount = Decimal(order.units).scaleb(-order.decimals).normalize()
    return (f"<p>{html.escape(f'{amount:f}')} {html.escape(order.symbol)} for {html.escape(order.fiat)} "
            f"{html.escape(order.currency)}</p><p>To {html.escape(order.address)} on {html.escape(order.network)}</p>")


MAX_FORM_BYTES = 1024
# the order page's own form post must carry its Origin: under the engine's default `no-referrer`
# the browser sends `Origin: null`, which the check below refuses (headers.py keeps a route's own)
PAGE_HEADERS = {"Referrer-Policy": "same-origin"}
NOT_FROM_ITS_PAGE = "This purchase can be completed only from its own page."


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


async def _form_token(request: Request) -> str:
    """The `token` field of a small urlencoded form body ("" when there is none)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return ""
    values = parse_qs(body.decode("latin-1"), max_num_fields=4).get("token", [])
    return values[0] if len(values) == 1 else ""


def routes(provider: LocalOnramp) -> list[Route]:
    key = secrets.token_bytes(32)
    own_origin = _origin(provider.public_url)

    def order_token(order_id: str) -> str:
        return hmac.new(key, order_id.encode(), hashlib.sha256).hexdigest()

    def from_its_page(request: Request, presented: str, order_id: str) -> bool:
        origin = request.headers.get("origin")
        if origin is not None and origin.lower() != own_origin:
            return False
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return False
        return hmac.compare_digest(presented.encode(), order_token(order_id).encode())

    async def page(request: Request) -> HTMLResponse:
        order = provider.orders.get(request.query_params.get("order", ""))
        if order is None:
            return HTMLResponse(PAGE.format(body="<p>No such order.</p>"), status_code=404)
        if order.tx:
            return HTMLResponse(PAGE.format(body=_order_text(order) + "<p role=status>Purchase complete</p>"))
        form = (f'<form method="post" action="/onramp/local/complete?order={html.escape(order.id)}">'
                f'<input type="hidden" name="token" value="{order_token(order.id)}">'
                '<button type="submit">Complete purchase</button></form>')
        return HTMLResponse(PAGE.format(body=_order_text(order) + form), headers=PAGE_HEADERS)

    async def complete(request: Request) -> Response:
        order_id = request.query_params.get("order", "")
        if order_id not in provider.orders:
            return HTMLResponse(PAGE.format(body="<p>No such order.</p>"), status_code=404)
        if not from_its_page(request, await _form_token(request), order_id):
            return HTMLResponse(PAGE.format(body=f"<p role=alert>{NOT_FROM_ITS_PAGE}</p>"), status_code=403)
        try:
            order = await provider.complete(request.app.state.http, order_id)
        except OnrampRefused as error:
            return HTMLResponse(PAGE.format(body=f"<p>{html.escape(str(error))}</p>"), status_code=404)
        except (RpcCallError, httpx.HTTPError) as error:  # e.g. the dev account cannot pay: said, not a traceback
            text = f"The transfer failed: {readable(str(error))}"
            return HTMLResponse(PAGE.format(body=f"<p role=alert>{html.escape(text)}</p>"), status_code=502)
        return HTMLResponse(PAGE.format(body=_order_text(order) + "<p role=status>Purchase complete</p>"
                                        f"<p><small>{html.escape(order.tx)}</small></p>"))

    return [Route("/onramp/local", page), Route("/onramp/local/complete", complete, methods=["POST"])]
