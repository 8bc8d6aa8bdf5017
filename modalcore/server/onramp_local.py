"""The local onramp provider's page (demo mode, issue 16): `GET /onramp/local?order=…` shows the
order and a Complete purchase button; `POST /onramp/local/complete?order=…` transfers the bought
token to the destination wallet on the dev chain (once) and says so. Served only with
`devchain_proxy` and `public_url` set (`python -m modalcore demo` sets both)."""

from __future__ import annotations

import html
from decimal import Decimal
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from ..rules.rpc_errors import readable
from ..services.jsonrpc import RpcCallError
from ..services.onramp.local import LocalOnramp, Order, OnrampRefused
from .config import EngineConfig

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local onramp</title>
<style>body{{font:16px system-ui;background:#111;color:#eee;display:grid;place-items:center;min-height:90vh}}
main{{background:#1d1d1d;padding:24px 32px;border-radius:16px;min-width:320px}}
button{{font:inherit;padding:10px 18px;border-radius:10px;border:0;background:#3b82f6;color:#fff}}</style>
</head><body><main><h1>Local onramp</h1>{body}</main></body></html>"""


def local_onramp(config: EngineConfig) -> LocalOnramp | None:
    if not (config.devchain_proxy and config.public_url):
        return None
    networks: dict[str, dict[str, Any]] = {
        network_id: {"rpc": network.rpc[0], "name": network.name,
                     "tokens": [t.model_dump() for t in network.tokens]}
        for network_id, network in config.networks.items() if network.dev
    }
    return LocalOnramp(config.public_url, networks)


def _order_text(order: Order) -> str:
    amount = Decimal(order.units).scaleb(-order.decimals).normalize()
    return (f"<p>{html.escape(f'{amount:f}')} {html.escape(order.symbol)} for {html.escape(order.fiat)} "
            f"{html.escape(order.currency)}</p><p>To {html.escape(order.address)} on {html.escape(order.network)}</p>")


def routes(provider: LocalOnramp) -> list[Route]:
    async def page(request: Request) -> HTMLResponse:
        order = provider.orders.get(request.query_params.get("order", ""))
        if order is None:
            return HTMLResponse(PAGE.format(body="<p>No such order.</p>"), status_code=404)
        if order.tx:
            return HTMLResponse(PAGE.format(body=_order_text(order) + "<p role=status>Purchase complete</p>"))
        form = (f'<form method="post" action="/onramp/local/complete?order={html.escape(order.id)}">'
                '<button type="submit">Complete purchase</button></form>')
        return HTMLResponse(PAGE.format(body=_order_text(order) + form))

    async def complete(request: Request) -> HTMLResponse:
        order_id = request.query_params.get("order", "")
        if order_id not in provider.orders:
            return HTMLResponse(PAGE.format(body="<p>No such order.</p>"), status_code=404)
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
