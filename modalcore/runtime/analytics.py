"""Where `Track` commands go (the interface is `ports.analytics.AnalyticsSink`): a logging sink
and an in-memory one for tests."""

from __future__ import annotations

import logging

from ..ports.analytics import TrackedEvent

log = logging.getLogger(__name__)


class LogSink:
    def track(self, event: TrackedEvent) -> None:
        log.info("track %s %s %s %s", event.project_id, event.session_id, event.event, event.props)


class MemorySink:
    """Keeps every event (bounded), for tests and the health page."""

    def __init__(self, limit: int = 10_000) -> None:
        self.events: list[TrackedEvent] = []
        self.limit = limit

    def track(self, event: TrackedEvent) -> None:
        log.info("track %s %s %s", event.project_id, event.event, event.props)
        self.events.append(event)
        if len(self.events) > self.limit:
            del self.events[: len(self.events) - self.limit]

    def names(self) -> list[str]:
        return [event.event for event in self.events]
