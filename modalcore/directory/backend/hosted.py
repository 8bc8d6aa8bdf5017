"""Client of a hosted wallet directory (behaviour.md §7): `/getWallets` and the image calls.

Every request carries projectId, st and sv; empty parameters are skipped (behaviour.md §7, shared
HTTP client). Images are fetched with the behaviour.md §9 preload time-out of 2 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote


from ...services.backend.hosted import HostedApi
from ..domain import platform
from ..domain.query import Page, WalletQuery
from ..domain.wallets import DirectoryError, wallets_from_data
from ...rules.texts import http_status

IMAGE_TIMEOUT_S = 2.0  # behaviour.md §9: image preload time-out
CALL_TIMEOUT_S = 10.0
MAX_IMAGE_BYTES = 1 << 20
IMAGE_PATHS = {
    "wallet": "/getWalletImage/{id}",
    "asset": "/public/getAssetImage/{id}",
    "currency": "/public/getCurrencyImage/{id}",
    "token": "/public/getTokenImage/{id}",
}


class HostedDirectory(HostedApi):

    async def get_wallets(self, *, page: int, entries: int, include: Sequence[str] = (),
                          exclude: Sequence[str] = (), search: str = "", badge_type: str = "",
                          chains: Sequence[str] = ()) -> dict[str, Any]:
        """GET /getWallets: page, entries, include, exclude, search, badge_type, chains;
        returns {data, count} as the directory sent it."""
        params = self._params({
            "page": page, "entries": entries, "include": tuple(include), "exclude": tuple(exclude),
            "search": search.strip(), "badge_type": badge_type, "chains": tuple(chains),
        })
        response = await self.http.get(f"{self.base_url}/getWallets", params=params,
                                       timeout=CALL_TIMEOUT_S)
        if response.status_code != 200:
            raise DirectoryError(http_status(response.status_code))
        body = response.json()
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            raise DirectoryError("the directory answered without a data list")
        return body

    async def wallets(self, query: WalletQuery) -> Page:
        """A page as the engine's sessions use it: validated records, then the platform rules
        applied to what came back (the hosted directory does not know the visitor's device)."""
        body = await self.get_wallets(
            page=query.page, entries=query.entries, include=query.include, exclude=query.exclude,
            search=query.search, badge_type=query.badge_type, chains=query.chains,
        )
        wallets = [w for w in wallets_from_data(body["data"])
                   if platform.usable(w, mobile=query.mobile, universal=query.universal)]
        count = body.get("count")
        return Page(tuple(wallets), count if isinstance(count, int) and count >= 0 else len(wallets))

    async def image(self, kind: str, image_id: str) -> tuple[bytes, str]:
        """GET one of the image calls; (bytes, content type). Raises on failure or time-out."""
        path = IMAGE_PATHS[kind].format(id=quote(image_id, safe=""))
        response = await self.http.get(f"{self.base_url}{path}", params=self._params({}),
                                       timeout=IMAGE_TIMEOUT_S)
        if response.status_code != 200:
            raise DirectoryError(http_status(response.status_code))
        content_type = response.headers.get("content-type", "application/octet-stream")
        if not content_type.startswith("image/") or len(response.content) > MAX_IMAGE_BYTES:
            raise DirectoryError("the directory answered with something that is not an image")
        return response.content, content_type
