"""Networks the host requested and the active one (SPEC §3 Network, §4 switching)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NetworksState:
    requested: tuple[str, ...] = ()
    active: str | None = None
    unsupported: str | None = None

    @property
    def active_namespace(self) -> str | None:
        if self.active is None:
            return None
        return self.active.split(":", 1)[0]
