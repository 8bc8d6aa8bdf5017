"""Reading what a harness's session shows: its view, the nodes of its tree, the texts on screen,
and the frames it sent (a part of the harness, enginetest/harness.py)."""

from __future__ import annotations

from typing import Any

from ..replay.screen import texts_on_screen
from ..wire.nodes import Node
from .client import SessionClient


class ScreenClient(SessionClient):
    """A `SessionClient` that reads the screen and the frames; `Harness` adds the wallet, the
    services and the checks."""

    # ----- what the client holds

    @property
    def view(self) -> str:
        return self.model.router.view

    @property
    def history(self) -> list[str]:
        return [route.view for route in self.model.router.history]

    def find(self, node_id: str) -> Node | None:
        return self.tree.find(node_id)

    def node(self, node_id: str) -> Node:
        found = self.find(node_id)
        if found is None:
            raise KeyError(f"no node {node_id!r} in the tree; ids: {sorted(self.ids())}")
        return found

    def ids(self) -> set[str]:
        return {n.id for n in self.tree.walk()}

    def texts(self) -> list[str]:
        """Every string a visitor could read, in document order."""
        keys = ("text", "title", "subtitle", "name", "message", "label")
        return [n.p[k] for n in self.tree.walk() for k in keys if isinstance(n.p.get(k), str) and n.p[k]]

    def find_text(self, text: str, *, exact: bool = False) -> list[Node]:
        keys = ("text", "title", "subtitle", "name", "message", "label")
        found = []
        for n in self.tree.walk():
            for key in keys:
                value = n.p.get(key)
                if isinstance(value, str) and (value == text if exact else text in value):
                    found.append(n)
                    break
        return found

    def of_type(self, t: str) -> list[Node]:
        return [n for n in self.tree.walk() if n.t == t]

    def frames_of(self, t: str, frames: list[dict[str, object]] | None = None) -> list[dict[str, Any]]:
        return [f for f in (self.frames if frames is None else frames) if f["t"] == t]

    def latest(self, t: str, **match: object) -> dict[str, Any]:
        """The newest frame of type `t` (whose fields equal `match`)."""
        for frame in reversed(self.frames):
            if frame["t"] == t and all(frame.get(k) == v for k, v in match.items()):
                found: dict[str, object] = frame
                return found
        raise KeyError(f"no {t} frame matching {match}")

    def host_state(self, kind: str = "state") -> dict[str, Any]:
        data: dict[str, object] = self.latest("host_event", kind=kind)["data"]
        return data

    def theme(self) -> dict[str, Any]:
        return self.latest("theme")

    def screen_texts(self) -> list[str]:
        """The texts on screen: none while the modal is closed, none in hidden parts."""
        return texts_on_screen(self.tree.to_wire())
