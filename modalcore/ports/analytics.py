"""The analytics sink interface: where `Track` commands go, as `TrackedEvent`s.

Implementations: `runtime.analytics` (log, memory), `analytics/` (hosted, local, off).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, init=False)
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

    def __init__(self, session_id: str, project_id: str, event: str, at: int,
                 props: Mapping[str, object] | None = None, event_id: str = "", address: str = "", url: str = "",
                 kind: str = "track") -> None:
        # made on a modal's opening and closing: a frozen dataclass's own __init__ sets each
        # field through `object.__setattr__`, a slot-wrapper call of ~1 k instructions a field
        self.__dict__.update(session_id=session_id, project_id=project_id, event=event, at=at,
                             props={} if props is None else props, event_id=event_id, address=address, url=url,
                             kind=kind)


class AnalyticsSink(Protocol):
    def track(self, event: TrackedEvent) -> None: ...
