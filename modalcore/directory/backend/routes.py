"""HTTP routes of the wallet directory (behaviour.md §7), served by the engine itself.

- `GET /getWallets`: page, entries, include, exclude, search, badge_type, chains → {data, count}.
- `GET /getWalletImage/{id}`: the wallet's image, or a monogram SVG the engine draws when it
  has none (`id` is an image id or a wallet id; `name` names a wallet the engine does not know).
- `GET /public/getAssetImage/{id}`, `/public/getCurrencyImage/{id}`, `/public/getTokenImage/{id}`:
  an image from the images folder or the hosted directory; 404 otherwise.

projectId, st and sv are accepted on every call (the hosted API's parameters) and not needed.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ...icons import svg
from .hosted import HostedDirectory
from ..domain.monogram import monogram_svg
from ..domain.query import QueryError, WalletQuery
from .source import directory_config, images_dir, local_directory, source_for
from ..domain.wallets import DirectoryError

log = logging.getLogger(__name__)

SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
IMAGE_TYPES = {".svg": "image/svg+xml", ".png": "image/png", ".webp": "image/webp",
               ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
IMAGE_HEADERS = {
    "Cache-Control": "public, max-age=86400",
    "X-Content-Type-Options": "nosniff",
    # an SVG opened directly must not run anything on the engine's origin
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "Access-Control-Allow-Origin": "*",
}


def _state(request: Request) -> tuple[Any, httpx.AsyncClient | None]:
    return getattr(request.app.state, "config", None), getattr(request.app.state, "http", None)


async def get_wallets(request: Request) -> Response:
    config, http = _state(request)
    try:
        query = WalletQuery.from_params(request.query_params)
    except QueryError as error:
        return JSONResponse({"error": str(error)}, status_code=400)
    project = request.query_params.get("projectId", "")
    try:
        page = await source_for(config, http, project).wallets(query)
    except (DirectoryError, httpx.HTTPError) as error:
        log.warning("directory query failed: %s", error)
        return JSONResponse({"error": "the wallet directory is unavailable"}, status_code=502)
    return JSONResponse({"data": [wallet.to_json() for wallet in page.data], "count": page.count},
                        headers={"Access-Control-Allow-Origin": "*"})


def _local_file(folder: Path | None, image_id: str) -> Path | None:
    if folder is None or not SAFE_ID.match(image_id):
        return None
    for suffix in IMAGE_TYPES:
        candidate = folder / f"{image_id}{suffix}"
        if candidate.is_file():
            return candidate
    return None


async def _image(request: Request, kind: str, image_id: str) -> tuple[bytes, str] | None:
    config, http = _state(request)
    path = _local_file(images_dir(config), image_id)
    if path is not None:
        return path.read_bytes(), IMAGE_TYPES[path.suffix]
    settings = directory_config(config)
    if settings.api_url and http is not None:
        client = HostedDirectory(http, settings.api_url,
                                 settings.project_id or request.query_params.get("projectId", ""))
        try:
            return await client.image(kind, image_id)
        except (DirectoryError, httpx.HTTPError) as error:
            log.info("hosted %s image %s unavailable: %s", kind, image_id, error)
    return None


def _image_response(found: tuple[bytes, str]) -> Response:
    return Response(found[0], media_type=found[1], headers=IMAGE_HEADERS)


async def wallet_image(request: Request) -> Response:
    key = request.path_params["id"]
    if len(key) > 128:
        return Response(status_code=404)
    config, _ = _state(request)
    wallet = local_directory(config).find(key)
    if wallet is None or wallet.image_id:
        found = await _image(request, "wallet", wallet.image_id if wallet else key)
        if found is not None:
            return _image_response(found)
    mark = svg("wallet", wallet.id) if wallet is not None and not wallet.image_id else None
    if mark is not None:  # the icon set's mark (modalcore/icons) before a monogram
        return Response(mark, media_type="image/svg+xml", headers=IMAGE_HEADERS)
    seed = wallet.id if wallet else key
    name = wallet.name if wallet else (request.query_params.get("name", "")[:128] or key)
    return Response(monogram_svg(seed, name), media_type="image/svg+xml", headers=IMAGE_HEADERS)


def _public_image(kind: str) -> Any:
    async def endpoint(request: Request) -> Response:
        image_id = request.path_params["id"]
        found = await _image(request, kind, image_id) if len(image_id) <= 128 else None
        return _image_response(found) if found is not None else Response(status_code=404)

    return endpoint


def routes() -> list[Route]:
    return [
        Route("/getWallets", get_wallets),
        Route("/getWalletImage/{id:str}", wallet_image),
        Route("/public/getAssetImage/{id:str}", _public_image("asset")),
        Route("/public/getCurrencyImage/{id:str}", _public_image("currency")),
        Route("/public/getTokenImage/{id:str}", _public_image("token")),
    ]
