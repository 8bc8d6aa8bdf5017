"""A JSON object request body, read up to MAX_BODY bytes."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

MAX_BODY = 16 * 1024


async def json_body(request: Request) -> dict[str, Any] | None:
    """The body's JSON object, or None (too large, not JSON, not an object)."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            return None
    try:
        data = json.loads(raw or b"null")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
