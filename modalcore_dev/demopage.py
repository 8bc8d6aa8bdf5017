"""The demo dApp page on its own origin (behaviour.md "Trust boundaries"): `make run` serves the
host page from one loopback port and the engine from another, so the approval frame (engine
origin) is really cross-origin to the page that embeds the modal.

The page is the built `index.html` with its scripts loaded from the engine (`modal.js` then
reaches the engine it was loaded from). The Dev Wallet's `/devchain/{chainId}` calls stay
same-origin for the page and are forwarded to the engine's proxy, which checks the page's Origin
against the project's allowed origins like any other.
"""

from __future__ import annotations

from collections.abc import Sequence

from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.middleware import Middleware
from starlette.routing import Route

from modalcore_dev.devproxy import MAX_BODY_BYTES
from modalcore.server.headers import DEMO_PAGE_CSP, SecurityHeaders

PAGE_MISSING = "renderer/dist/index.html is missing: build the renderer (make deps)"


def page_origins(host: str, port: int) -> list[str]:
    """The allowed origins of the demo project: the page's own origin only (both loopback names
    when the page is on loopback, so http://localhost:{port} works as well)."""
    origins = [f"http://{host}:{port}"]
    if host in ("127.0.0.1", "localhost"):
        origins = [f"http://127.0.0.1:{port}", f"http://localhost:{port}"]
    return origins


def demo_project(page_host: str, page_port: int, allow_origins: Sequence[str] = ()) -> dict[str, object]:
    """The demo project: only the demo page's origin, and the origins a developer names with
    `make run ALLOW_ORIGIN=...` (their own app against the demo engine, issue 40 item 3), may open
    sessions, use the dev-chain proxy or frame the approval page (behaviour.md §9's default ancestors are
    off, or every loopback port would)."""
    return {"name": "Modalcore demo dApp", "origins": [*page_origins(page_host, page_port), *allow_origins],
            "default_origins": False}


def page_html(index: str, engine_url: str) -> str:
    """The demo page with its scripts taken from the engine's origin."""
    return index.replace('src="/static/', f'src="{engine_url.rstrip("/")}/static/')


def create_page_app(static_dir: Path, engine_url: str) -> Starlette:
    async def index(request: Request) -> Response:
        page = static_dir / "index.html"
        if not page.is_file():
            return PlainTextResponse(PAGE_MISSING, status_code=503)
        return HTMLResponse(page_html(page.read_text(encoding="utf-8"), engine_url),
                            headers={"Content-Security-Policy": DEMO_PAGE_CSP})

    async def devchain(request: Request) -> Response:
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():  # bounded like the engine's own proxy
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                return PlainTextResponse(f"request bodies are at most {MAX_BODY_BYTES} bytes", status_code=413)
            chunks.append(chunk)
        body = b"".join(chunks)
        headers = {k: v for k, v in request.headers.items() if k in ("content-type", "origin")}
        http: httpx.AsyncClient = request.app.state.http
        try:
            reply = await http.post(f"{engine_url.rstrip('/')}/devchain/{request.path_params['chainId']}",
                                    content=body, headers=headers)
        except httpx.HTTPError:
            return PlainTextResponse("the engine is not reachable", status_code=502)
        return Response(reply.content, status_code=reply.status_code,
                        media_type=reply.headers.get("content-type", "application/json"))

    app = Starlette(routes=[Route("/", index), Route("/devchain/{chainId:str}", devchain, methods=["POST"])],
                    middleware=[Middleware(SecurityHeaders)])
    app.state.http = httpx.AsyncClient(timeout=30.0)
    return app
