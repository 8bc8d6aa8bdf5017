"""`/healthz` (which worker answered, what the whole engine holds, a 503 while saves fail) and the
id a worker goes by everywhere (its audit signed sets, metrics labels, /healthz)."""

from __future__ import annotations

import asyncio
import os
import secrets

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..durable.db import DatabaseError, Durable
from ..store.base import SessionStore
from ..store.leases import LOCAL
from .hub import Hub
from .metrics import Metrics
from .metrics_share import SharedMetrics


async def healthz(request: Request) -> Response:
    """200 `{"ok": true, "worker": id, "pid": n, "sessions": n, "worker_sessions": n}`: which
    worker answered (the id of its metrics label and audit signed sets), what the whole engine
    holds (every worker of `serve --workers N`, as `/metrics`' `modalcore_sessions`) and what
    this worker holds. 503 with the reason while this worker's session saves fail (the store is
    down, issue 27: a load balancer drains this worker until they land again), or while the
    shared database of `[database] url` cannot be reached (issue 42)."""
    hub: Hub = request.app.state.hub
    metrics: Metrics = request.app.state.metrics
    shared: SharedMetrics | None = request.app.state.shared_metrics
    own = len(hub)
    sessions = sum(shared.sessions_by_worker().values()) if shared is not None else own
    body: dict[str, object] = {"ok": True, "worker": metrics.worker, "pid": os.getpid(),
                               "sessions": sessions, "worker_sessions": own}
    saves = hub.deps.saves
    health = saves.health() if saves is not None else None
    if health is not None and health.reason is not None:
        return JSONResponse({**body, "ok": False, "reason": health.reason, "unsaved": health.unsaved},
                            status_code=503)
    down = await database_down(getattr(request.app.state, "durable", None))
    if down is not None:
        return JSONResponse({**body, "ok": False, "reason": down}, status_code=503)
    return JSONResponse(body)


async def database_down(db: Durable | None) -> str | None:
    """Why the shared database cannot be reached, or None. Only after a call failed to reach it
    does this ask again (`SELECT 1`, in a thread: up to the pool's wait), so a host drained for
    it comes back once the database does, with or without traffic."""
    if db is None or db.failing is None:
        return None
    try:
        await asyncio.to_thread(db.execute, "SELECT 1")
    except DatabaseError:
        return db.failing
    return None


def worker_id(store: SessionStore) -> str:
    """The id this process goes by: the store's lease holder (Redis), else a fresh one."""
    own = store.leases.worker_id
    return own if own != LOCAL else secrets.token_hex(8)
