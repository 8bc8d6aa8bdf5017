"""The hosted analytics client (behaviour.md §7): `GET /getAnalyticsConfig` once per project (a failure
disables analytics for it), then each event as `POST /e` with projectId, st and sv, and a body
of eventId, url, domain, timestamp and props (the event data plus the address). MODAL_CREATED
is never posted; error telemetry goes the same path when the gate lets it through."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx

from ..ports.analytics import TrackedEvent
from ..ports.clock import Clock
from ..services.backend.hosted import HostedApi
from .events import DOCTOR, MODAL_CREATED
from .gate import TelemetryGate

log = logging.getLogger(__name__)

CALL_TIMEOUT_S = 10.0  # behaviour.md §9: RPC default time-out 10000 ms
MAX_QUEUED = 10_000  # events waiting to be posted; more are dropped (and logged)


class HostedAnalytics(HostedApi):
    """The two calls, for one project."""

    async def analytics_enabled(self) -> bool:
        """`isAnalyticsEnabled` of `GET /getAnalyticsConfig`; any failure disables analytics."""
        try:
            response = await self.http.get(f"{self.base_url}/getAnalyticsConfig",
                                            params=self._params({}), timeout=CALL_TIMEOUT_S)
            response.raise_for_status()
            body = response.json()
        except (httpx.HTTPError, ValueError) as error:
            log.info("analytics config of %s failed (%s): analytics off", self.project_id, error)
            return False
        return isinstance(body, dict) and body.get("isAnalyticsEnabled") is True

    async def post_event(self, event: TrackedEvent) -> int:
        """POST /e; the HTTP status (403: the origin is not on the project's allowlist)."""
        response = await self.http.post(f"{self.base_url}/e", params=self._params({}),
                                        json=event_body(event), timeout=CALL_TIMEOUT_S)
        return response.status_code


def event_body(event: TrackedEvent) -> dict[str, object]:
    if event.kind == "error":
        props: dict[str, object] = dict(event.props)
    else:
        props = {"type": "track", "event": event.event, "properties": dict(event.props)}
    props["address"] = event.address
    return {
        "eventId": event.event_id,
        "url": event.url,
        "domain": urlsplit(event.url).netloc,
        "timestamp": event.at,
        "props": props,
    }


class HostedAnalyticsSink:
    """An AnalyticsSink posting to a hosted endpoint from one background task, in order."""

    def __init__(self, endpoint: str, clock: Clock, *, test: bool = False,
                 http: httpx.AsyncClient | None = None,
                 on_forbidden: Callable[[str], None] | None = None) -> None:
        self.endpoint = endpoint
        self.http = http
        # told the session id of an event answered 403 (the server shows the visitor's modal
        # 'Invalid App Configuration', behaviour.md §8)
        self.on_forbidden = on_forbidden
        self.gate = TelemetryGate(clock, test)
        self._queue: asyncio.Queue[TrackedEvent] = asyncio.Queue(MAX_QUEUED)
        self._enabled: dict[str, bool] = {}
        self._task: asyncio.Task[None] | None = None

    def track(self, event: TrackedEvent) -> None:
        if event.event == MODAL_CREATED or event.event.startswith(DOCTOR + " "):
            return
        if event.kind == "error" and not self.gate.allow():
            return
        if self._enabled.get(event.project_id) is False:
            return
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            log.warning("analytics queue full: %s dropped", event.event)
            return
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while not self._queue.empty():
            event = self._queue.get_nowait()
            try:
                await self._post(event)
            except Exception as error:  # the endpoint is someone else's: never fatal
                log.info("analytics %s not sent: %s", event.event, error)
            finally:
                self._queue.task_done()

    async def _post(self, event: TrackedEvent) -> None:
        if self.http is None:
            raise RuntimeError("no HTTP client yet")
        api = HostedAnalytics(self.http, self.endpoint, event.project_id)
        enabled = self._enabled.get(event.project_id)
        if enabled is None:
            enabled = self._enabled[event.project_id] = await api.analytics_enabled()
        if not enabled:
            return
        status = await api.post_event(event)
        if status == 403:
            log.warning("analytics: 403 for project %s: Invalid App Configuration "
                        "(the origin is not on the project's allowlist)", event.project_id)
            if self.on_forbidden is not None:
                self.on_forbidden(event.session_id)
        elif status >= 400:
            log.info("analytics %s: HTTP status code: %d", event.event, status)

    async def flush(self) -> None:
        """Wait until every queued event was posted (or failed)."""
        await self._queue.join()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
