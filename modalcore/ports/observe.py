"""What each update produced, seen from the runtime edge (the audit log and derived analytics
events read it; `update` stays pure and knows nothing of them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..core.cmds import Cmd, EffectTo
from ..core.msg import Msg
from ..wire.frames import ClientFrame
from ..wire.serverframes import ServerFrame

if TYPE_CHECKING:  # a Step carries the model; the interface does not depend on the slices
    from ..slices.model import Model

PendingEffects = Mapping[str, EffectTo]  # eid -> where its answer goes


@dataclass(frozen=True, init=False)
class Step:
    """One input the session processed: the model before and after, the input (a client frame,
    a message, or None for a socket attaching), what went out, and the browser effects pending
    before (eid -> where its answer goes)."""

    session_id: str
    at: int
    before: Model
    after: Model
    cause: ClientFrame | Msg | None
    frames: list[ServerFrame]
    cmds: Sequence[Cmd]
    effects_before: PendingEffects = field(default_factory=dict)

    def __init__(self, session_id: str, at: int, before: Model, after: Model, cause: ClientFrame | Msg | None,
                 frames: list[ServerFrame], cmds: Sequence[Cmd], effects_before: PendingEffects | None = None) -> None:
        # one Step per input: a frozen dataclass's own __init__ sets each field through
        # `object.__setattr__`, a slot-wrapper call that cost ~1 k instructions a field
        self.__dict__.update(session_id=session_id, at=at, before=before, after=after, cause=cause, frames=frames,
                             cmds=cmds, effects_before={} if effects_before is None else effects_before)


class SessionObserver(Protocol):
    async def observe(self, step: Step) -> None: ...
