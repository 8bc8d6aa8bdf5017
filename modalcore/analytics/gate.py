"""Error telemetry's gate (behaviour.md §7, §9): only when the test flag is on, at most 5 per 60 s."""

from __future__ import annotations

from collections import deque

from ..ports.clock import Clock

TELEMETRY_CAP = 5  # behaviour.md §9: telemetry cap 5 per 60 s
TELEMETRY_WINDOW_MS = 60_000


class TelemetryGate:
    def __init__(self, clock: Clock, test: bool, cap: int = TELEMETRY_CAP,
                 window_ms: int = TELEMETRY_WINDOW_MS) -> None:
        self.clock, self.test, self.cap, self.window_ms = clock, test, cap, window_ms
        self._sent: deque[int] = deque()

    def allow(self) -> bool:
        """One more error report may go out now (and is counted)."""
        if not self.test:
            return False
        now = self.clock.now_ms()
        while self._sent and now - self._sent[0] >= self.window_ms:
            self._sent.popleft()
        if len(self._sent) >= self.cap:
            return False
        self._sent.append(now)
        return True
