"""The analytics sink an engine runs with, from its config's `[analytics]` section."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ports.analytics import AnalyticsSink, TrackedEvent
from ..ports.clock import Clock
from ..store.base import SessionStore
from .hosted import HostedAnalyticsSink
from .local import LocalAnalyticsSink

if TYPE_CHECKING:  # the config section's type only: the server's config sits above the sinks
    from ..server.config import AnalyticsConfig


class NullSink:
    """`mode = "off"`: every event is dropped."""

    def track(self, event: TrackedEvent) -> None:
        return None


def build_sink(config: AnalyticsConfig, store: SessionStore, clock: Clock) -> AnalyticsSink:
    if config.mode == "hosted":
        return HostedAnalyticsSink(config.endpoint, clock, test=config.test)
    if config.mode == "local":
        return LocalAnalyticsSink(store, clock, test=config.test, retention_days=config.retention_days)
    return NullSink()
