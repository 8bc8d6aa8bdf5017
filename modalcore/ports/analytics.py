"""The analytics sink interface: where `Track` commands go, as `TrackedEvent`s.

Implementations: `runtime.analytics` (log, memory), `analytics/` (hosted, local, off).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class TrackedEvent:
    session_id: str
    project_id: str
    event: str
    at: int
    props: Mapping[str, object] = field(default_factory=dict)  # JSON values (the Track's)
    event_id: str = ""  # derived deterministically (modalcore/analytics/events.py)
    address: str = ""  # the visitor's connected address, if any
    url: str = ""  # the host page (its origin, as verified at the handshake)
    kind: str = "track"  # or "error": error telemetry (behaviour.md §7)


class AnalyticsSink(Protocol):
    def track(self, event: TrackedEvent) -> None: ...
