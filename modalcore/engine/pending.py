"""The model's pending effects (slices/pending.py) as the session's edge uses them: an effect
`update` asked for is expected; an answer settles the one it names, once, and becomes its typed
reference (`EffectTo`) there; anything else is not an answer. Pure functions of the model."""

from __future__ import annotations

from ..core.cmds import EffectTo
from ..core.evolve import replace
from ..core.msg import MessageTypes
from ..slices.model import Model
from ..slices.pending import PendingEffect, PendingState
from .named import effect_to, purpose


def expect(model: Model, eid: str, to: EffectTo, *, engine: bool = False) -> Model:
    """The effect `eid` waits for its answer, which becomes `to`. The engine holds one request as
    the embedded wallet at a time: a new one replaces the one it held."""
    kept = tuple(e for e in model.pending.effects if e.eid != eid and not (engine and e.engine))
    return replace(model, pending=PendingState((*kept, PendingEffect(eid, purpose(to), engine))))


def settle(model: Model, eid: str, types: MessageTypes, *, engine: bool = False) -> tuple[Model, EffectTo | None]:
    """The answer for `eid` taken once: the model without it and where it goes; None (the model
    unchanged) when no such effect waits, or it is not of the kind answering (`engine`: the
    embedded wallet's answer; else the page's, the runtime's or the time-out)."""
    found = model.pending.get(eid)
    if found is None or found.engine != engine:
        return model, None
    kept = tuple(e for e in model.pending.effects if e.eid != eid)
    return replace(model, pending=PendingState(kept)), effect_to(found.reply, types)


def waiting(model: Model, types: MessageTypes, *, engine: bool = False) -> dict[str, EffectTo]:
    """The effects of one kind still waiting: effect id -> where its answer goes."""
    return {e.eid: effect_to(e.reply, types) for e in model.pending.effects if e.engine == engine}


def restored(model: Model, effects: dict[str, str], held: dict[str, str]) -> Model:
    """A session saved before the model held its pending effects kept them beside it (eid ->
    reply name): they move into the model as they were."""
    if model.pending.effects or not (effects or held):
        return model
    entries = [PendingEffect(eid, name) for eid, name in effects.items()]
    entries += [PendingEffect(eid, name, engine=True) for eid, name in list(held.items())[-1:]]
    return replace(model, pending=PendingState(tuple(entries)))
