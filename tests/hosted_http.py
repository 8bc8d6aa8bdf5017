"""An httpx client whose transport records every request and answers with one JSON body: the
hosted-API client tests check the exact requests with it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

# projectId, st and sv as behaviour.md §7 adds them to every hosted call (sdk type and version defaults)
SDK_PARAMS = {"projectId": "proj1", "st": "html-wagmi-4.2.2", "sv": "4"}


@asynccontextmanager
async def recording_http(answer: Any = None, status: int = 200
                         ) -> AsyncIterator[tuple[list[httpx.Request], httpx.AsyncClient]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, json=answer if answer is not None else {})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        yield seen, http
