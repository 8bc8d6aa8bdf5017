"""Live sockets and sessions per client address (issue 27), a part of the hub (server/hub.py).

A client address holds at most `max_sessions_per_address` live sockets; a session whose socket
closed no longer counts. At most as many sessions without a socket per address stay in memory:
past that the oldest leaves memory at once (its state stays in the store), so closing sockets and
opening new ones cannot pile up sessions."""

from __future__ import annotations

from collections import Counter

from ..runtime.runner import SessionRunner


class AddressBook:
    """The hub's count of sockets and sessions per client address; `runners` is the hub's map of
    live sessions (read, never changed here)."""

    def __init__(self, runners: dict[str, SessionRunner], cap: int) -> None:
        self._runners = runners
        self._cap = cap
        self._addresses: dict[str, str] = {}  # session id -> the client address of its latest socket
        self._sessions_of: dict[str, dict[str, None]] = {}  # address -> its sessions, oldest first
        self._sockets: Counter[str] = Counter()  # address -> live sockets admitted

    def address_full(self, address: str) -> bool:
        """This client address holds as many live sockets as it may."""
        return self._sockets[address] >= self._cap

    def live_sockets(self, address: str) -> int:
        return self._sockets[address]

    def over_cap(self, address: str) -> bool:
        return self._sockets[address] > self._cap

    def admit(self, address: str, replacing: str | None = None, *, companion: bool = False) -> bool:
        """Count one more live socket for `address` (False, nothing counted, when it holds its
        cap already, unless the socket takes over `replacing`, a session with a socket attached:
        that socket is closed by the takeover). `companion`: the socket is a linked phone's
        (`/ws/companion`, server/companion.py), counted as a host page's; it takes over the
        session's companion socket. Each admitted socket is `release`d once."""
        runner = self._runners.get(replacing) if replacing is not None else None
        held = None if runner is None else runner.companion if companion else runner.outlet
        takes_over = runner is not None and held is not None and not runner.closing
        if self.address_full(address) and not takes_over:
            return False
        self._sockets[address] += 1
        self._evict_detached(address)
        return True

    def release(self, address: str) -> None:
        """An admitted socket closed."""
        self._sockets[address] -= 1
        if self._sockets[address] <= 0:
            del self._sockets[address]

    def address_of(self, session_id: str) -> str:
        """The client address of the session's latest socket ("" when not known)."""
        return self._addresses.get(session_id, "")

    def _evict_detached(self, address: str) -> None:
        """Sessions of `address` without a socket beyond one less than the cap leave memory,
        oldest first (the one the new socket may make fits then)."""
        detached = [runner for session_id in self._sessions_of.get(address, ())
                    if (runner := self._runners.get(session_id)) is not None
                    and runner.outlet is None and not runner.closing]
        for runner in detached[:max(0, len(detached) - self._cap + 1)]:
            runner.evict()

    def count(self, session_id: str, address: str) -> None:
        """The session's latest socket came from `address`."""
        self.uncount(session_id)
        self._addresses[session_id] = address
        self._sessions_of.setdefault(address, {})[session_id] = None

    def uncount(self, session_id: str) -> None:
        """The session left memory."""
        address = self._addresses.pop(session_id, None)
        if address is not None:
            sessions = self._sessions_of.get(address, {})
            sessions.pop(session_id, None)
            if not sessions:
                self._sessions_of.pop(address, None)
