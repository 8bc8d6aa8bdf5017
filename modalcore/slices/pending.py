"""The effects a session waits on, in the model (one place, persisted with it): each effect id
with the reply its answer becomes, written as the reply's name (`"<Reply class>|<key>"`, turned
into the typed reference only at the session's edge, engine/pending.py).

Two kinds wait here: an effect sent to the page or run by the engine's runtime (a browser's or a
wallet's answer settles it, or its time-out), and the one request the engine holds as the
embedded wallet (`engine`: its approval flow answers it; the page never sees it, and an answer
from the page for its id is not one)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PendingEffect:
    eid: str
    reply: str  # the reply's name (engine/named.purpose)
    engine: bool = False  # held by the engine as the embedded wallet


@dataclass(frozen=True)
class PendingState:
    effects: tuple[PendingEffect, ...] = ()

    def get(self, eid: str) -> PendingEffect | None:
        return next((effect for effect in self.effects if effect.eid == eid), None)
