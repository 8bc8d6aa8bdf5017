"""Where `Track` commands go: a sink interface, a logging sink and an in-memory one for tests."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrackedEvent:
    session_id: str
    project_id: str
    event: str
    at: int
    props: dict[str, Any] = field(default_factory=dict)
    event_id: str = ""  # derived deterministically (modalcore/analytics/events.py)
    address: str = ""  # the visitor's connected address, if any
    url: str = ""  # the host page (its origin, as verified at the handshake)
    kind: str = "track"  # or "error": error telemetry (SPEC §7)


class AnalyticsSink(Protocol):
    def track(self, event: TrackedEvent) -> None: ...


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
