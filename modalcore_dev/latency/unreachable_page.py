"""A host page whose engine cannot be reached (issue 39's walk): the modal's bundle (modal.js)
served by the host itself, `createModal` pointed at an engine URL where nothing listens, and
`<modalcore-button>`. The page keeps the renderer-side host events it hears in
`window.hostErrors` and `window.hostConnection`.

`serve_unreachable_page(bundle, engine_url)` serves it (127.0.0.1, a port of its own) and gives
its URL. Shared by tests/e2e/test_unreachable_browser.py (which then starts the engine on that
URL's port) and the latency bench (Connect pressed → the unreachable view).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from modalcore_testing import serve_app

HOST_PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Host dApp</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,"></head>
<body style="font:16px system-ui;padding:24px">
<script src="/modal.js"></script>
<script>
  window.hostErrors = []; window.hostConnection = [];
  const modal = ModalCore.createModal({projectId: 'demo', networks: ['eip155:31337'],
    engineUrl: '%(engine)s'});
  modal.subscribeError((e) => window.hostErrors.push(e));
  modal.subscribeConnection((c) => window.hostConnection.push(c.status));
</script>
<modalcore-button project-id="demo" networks="eip155:31337"></modalcore-button></body></html>"""


@contextlib.contextmanager
def serve_unreachable_page(bundle: Path, engine_url: str) -> Iterator[str]:
    """The page's URL (no trailing slash) while it is served."""
    script = bundle.read_bytes()

    async def host(request: Request) -> Response:
        return HTMLResponse(HOST_PAGE % {"engine": engine_url})

    async def modal(request: Request) -> Response:
        return Response(script, media_type="text/javascript")

    with serve_app(Starlette(routes=[Route("/", host), Route("/modal.js", modal)])) as server:
        yield server.http_url
