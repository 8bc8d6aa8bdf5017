"""The analytics sink an engine runs with, from its config's `[analytics]` section."""

from __future__ import annotations

from ..runtime.analytics import AnalyticsSink, TrackedEvent
from ..runtime.clock import Clock
from ..server.config import AnalyticsConfig
from ..store.base import SessionStore
from .hosted import HostedAnalyticsSink
from .local import LocalAnalyticsSink


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
