"""`GET /icons/{kind}/{name}.svg`: a mark of the icon set (modalcore/icons), or 404. Only names
the set holds are answered (a lookup in memory, never a path on disk), so nothing else is read."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import icon_set, svg

HEADERS = {
    # the URL carries the set's digest (`?v=`): a new set is a new URL
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
    # an SVG opened directly must not run anything on the engine's origin
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "Access-Control-Allow-Origin": "*",
    "Cross-Origin-Resource-Policy": "cross-origin",
}


async def icon(request: Request) -> Response:
    kind = str(request.path_params["kind"])
    file = str(request.path_params["file"])
    data = svg(kind, file.removesuffix(".svg")) if file.endswith(".svg") and len(file) <= 80 else None
    if data is None:
        return Response(status_code=404, headers={"X-Content-Type-Options": "nosniff"})
    return Response(data, media_type="image/svg+xml", headers=HEADERS)


def routes() -> list[Route]:
    icon_set()  # read at start: a missing or broken set fails here, not on a visitor's request
    return [Route("/icons/{kind:str}/{file:str}", icon)]
