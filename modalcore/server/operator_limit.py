"""Wrong operator tokens per client address (issue 38 item 7): the operator routes (bearer token)
and the operator sign-in form compare a token; an address that presented FAILURES wrong ones in
the last WINDOW_MS is answered 429 with `Retry-After`, before any token is compared, until the
oldest of them leaves the window. The right token from another address is not held back.

One table per engine process (a bound: N workers allow N times the figure); addresses are keyed
as the mail budgets key them (an IPv6 /64 is one address) and at most MAX_ADDRESSES are kept
(the quietest dropped first), so a flood of addresses costs bounded memory.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse

from ..embedded.budget import address_key

FAILURES = 10
WINDOW_MS = 60_000
MAX_ADDRESSES = 10_000


def _monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


class WrongTokens:
    """The times of each address's recent wrong tokens."""

    def __init__(self, failures: int = FAILURES, window_ms: int = WINDOW_MS,
                 clock: Callable[[], int] = _monotonic_ms) -> None:
        self.failures = failures
        self.window_ms = window_ms
        self.clock = clock
        self._seen: OrderedDict[str, deque[int]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, key: str, now: int) -> deque[int]:
        times = self._seen.get(key, deque())
        while times and now - times[0] >= self.window_ms:
            times.popleft()
        return times

    def wait_s(self, address: str) -> int:
        """0 when `address` may present a token now; else the whole seconds until it may."""
        now = self.clock()
        with self._lock:
            times = self._recent(address_key(address), now)
            if len(times) < self.failures:
                return 0
            return max(1, -(-(times[len(times) - self.failures] + self.window_ms - now) // 1000))

    def failed(self, address: str) -> None:
        now = self.clock()
        key = address_key(address)
        with self._lock:
            times = self._recent(key, now)
            times.append(now)
            while len(times) > self.failures:
                times.popleft()
            self._seen[key] = times
            self._seen.move_to_end(key)
            while len(self._seen) > MAX_ADDRESSES:
                self._seen.popitem(last=False)


def client_address(request: Request) -> str:
    return request.client.host if request.client else ""


def too_many(wait_s: int) -> JSONResponse:
    return JSONResponse({"error": "too_many_attempts", "retry_after": wait_s}, status_code=429,
                        headers={"Retry-After": str(wait_s)})


def wrong_tokens(request: Request) -> WrongTokens:
    """The app's table (made with the app: server/app.py)."""
    table: WrongTokens = request.app.state.operator_wrong_tokens
    return table
