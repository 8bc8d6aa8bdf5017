"""What every session runner of a hub shares (`RunnerDeps`), and what runs the effects the
engine handles itself (`EffectRunner`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..core.services import ServiceContext
from ..engine.session import Session
from ..ports.analytics import AnalyticsSink
from ..ports.clock import Clock
from ..ports.observe import SessionObserver
from ..rules.limits import UNUSED_SESSION_EVICT_MS
from ..store.base import SessionStore
from .errorbook import ErrorBook
from .saves import PendingSaves
from .services import ServiceRegistry

if TYPE_CHECKING:
    from .runner import SessionRunner


@dataclass
class RunnerDeps:
    """What every runner of a hub shares."""

    clock: Clock
    services: ServiceRegistry
    analytics: AnalyticsSink
    store: SessionStore | None = None
    make_context: Callable[[Session], ServiceContext] | None = None
    idle_evict_ms: int = 600_000
    unused_evict_ms: int = UNUSED_SESSION_EVICT_MS
    on_closed: Callable[[SessionRunner], None] | None = None
    observers: tuple[SessionObserver, ...] = ()  # see what each update produced (audit, ...)
    walletconnect: EffectRunner | None = None  # runs the `walletconnect` effects (the relay)
    errors: ErrorBook | None = None  # unexpected errors, grouped for the operator (/operator/errors)
    _saves: PendingSaves | None = field(default=None, init=False, repr=False)

    @property
    def saves(self) -> PendingSaves | None:
        """Where every runner's saves go (kept and retried when the store fails, issue 27); one
        per store (None: no store)."""
        if self.store is None:
            return None
        if self._saves is None or self._saves.store is not self.store:
            self._saves = PendingSaves(self.store, self.clock)
        return self._saves


class EffectRunner(Protocol):
    """Runs an effect the engine handles itself (core/cmds.RUNTIME_EFFECT_KINDS) for a session:
    (ok, result, error code, error message), like a browser's answer."""

    async def run(self, session_id: str, req: dict[str, object]) -> tuple[bool, Any, int, str]: ...

    async def forget(self, session_id: str) -> None:
        """The session ended for good (its host left): drop what the runner kept for it."""
