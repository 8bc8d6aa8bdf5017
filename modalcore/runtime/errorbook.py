"""Unexpected errors while a session processed an input, grouped for the operator (issue 46):
by cause (the exception's type) and route (what was being processed: `PROCESS_DELIVER`,
`PROCESS_ATTACH`, ...), with first and last seen, a count and the last session it hit. The
runner records each one here besides the telemetry it sends (runtime/commands.py); the server
shows them at `/operator/errors` and counts them in `/metrics` (`modalcore_errors_total`).

Bounded: at most MAX_GROUPS groups per worker; past it, a new group replaces the one seen least
recently (counted in `dropped`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

MAX_GROUPS = 200
MAX_MESSAGE_CHARS = 300


@dataclass(frozen=True)
class ErrorGroup:
    kind: str  # the exception's type, e.g. KeyError
    route: str  # what was processed, e.g. PROCESS_DELIVER
    count: int
    first_ms: int
    last_ms: int
    last_session: str
    message: str  # the last one's text, cut to MAX_MESSAGE_CHARS


class ErrorBook:
    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], ErrorGroup] = {}
        self.dropped = 0

    def record(self, kind: str, route: str, session: str, message: str, now_ms: int) -> None:
        key = (kind[:100], route[:100])
        found = self._groups.pop(key, None)
        text = message[:MAX_MESSAGE_CHARS]
        if found is None:
            if len(self._groups) >= MAX_GROUPS:
                del self._groups[next(iter(self._groups))]  # the least recently seen
                self.dropped += 1
            found = ErrorGroup(key[0], key[1], 0, now_ms, now_ms, session, text)
        self._groups[key] = replace(found, count=found.count + 1, last_ms=now_ms, last_session=session,
                                    message=text)

    def groups(self) -> list[ErrorGroup]:
        """The most recently seen first."""
        return list(reversed(self._groups.values()))

    def counts(self) -> dict[tuple[str, str], int]:
        return {key: group.count for key, group in self._groups.items()}
