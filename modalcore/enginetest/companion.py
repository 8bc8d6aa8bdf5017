"""A companion (the linked phone, engine/companion.py) beside a `Harness`: the frames the phone
gets, the tree it holds (built only from its snapshots and patches, as a page builds it), and
its presses. Every step of the harness's session is mirrored to it, as the runner does after
each step it sends to the host page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.companion import Companion
from ..engine.output import Output
from ..wire.diff import apply
from ..wire.frames import ClientFrame, EffectResult, Intent, Resync, WalletEvent
from ..wire.nodes import Node
from ..wire.serverframes import ServerFrame, wire
from .harness import Harness

WireFrame = dict[str, Any]  # a server frame as the phone's page decodes it


class Phone:
    """The phone's page joined to `host`'s session."""

    def __init__(self, host: Harness, public_key: str = "") -> None:
        self.host = host
        self.companion = Companion(host.session, host.now, public_key)
        self.frames: list[WireFrame] = []
        self.last: list[WireFrame] = []
        self.tree_wire: WireFrame | None = None
        self.version = 0
        self.client_seq = 0
        self.server_seq = 0
        self._iids = 0
        # as the runner does: every step the host gets is mirrored
        host.observers.append(self._mirror)
        self._take(self.companion.welcome())

    def _mirror(self, out: Output) -> None:
        self._take(self.companion.mirror(out.frames))

    # ----- what the phone holds
    @property
    def tree(self) -> Node:
        assert self.tree_wire is not None, "no snapshot yet"
        return Node.from_wire(self.tree_wire)

    def texts(self) -> list[str]:
        keys = ("text", "title", "subtitle", "name", "message", "label")
        return [n.p[k] for n in self.tree.walk() for k in keys if isinstance(n.p.get(k), str) and n.p[k]]

    # ----- frames in
    def send(self, frame: ClientFrame) -> list[WireFrame]:
        mine, out = self.companion.receive(frame, self.host.now)
        self.host.take_output(out)  # the host page's frames and the commands (mirrored frames: none more)
        return self._take(mine)

    def intent(self, node: str, act: str = "press", args: Mapping[str, object] | None = None) -> WireFrame:
        """Send an intent; its `intent_ack`."""
        self._iids += 1
        iid = f"p{self._iids}"
        self.client_seq += 1
        self.send(Intent(t="intent", s=self.client_seq, a=self.server_seq, iid=iid, node=node, act=act,
                                  args=dict(args or {})))
        ack: WireFrame = next(f for f in self.frames if f["t"] == "intent_ack" and f["iid"] == iid)
        return ack

    def press(self, node: str) -> None:
        ack = self.intent(node)
        if ack["status"] != "ok":
            raise AssertionError(f"the phone's press on {node!r} was {ack}")

    def effect_result(self, eid: str, result: object = None) -> list[WireFrame]:
        self.client_seq += 1
        return self.send(EffectResult.model_validate({"t": "effect_result", "s": self.client_seq,
                                                      "a": self.server_seq, "eid": eid, "ok": True,
                                                      "result": result}))

    def wallet_event(self, connector: str, event: str, data: object = None) -> list[WireFrame]:
        self.client_seq += 1
        return self.send(WalletEvent.model_validate({"t": "wallet_event", "s": self.client_seq,
                                                     "a": self.server_seq, "connector": connector,
                                                     "event": event, "data": data}))

    def resync(self) -> list[WireFrame]:
        self.client_seq += 1
        return self.send(Resync(t="resync", s=self.client_seq, a=self.server_seq, v=self.version))

    # ----- bookkeeping: the page's own tree, from its frames only
    def _take(self, frames: list[ServerFrame]) -> list[WireFrame]:
        taken = [wire(frame) for frame in frames]
        for frame in taken:
            self.server_seq = max(self.server_seq, int(frame["s"]))
            if frame["t"] == "snapshot":
                self.tree_wire, self.version = frame["tree"], frame["v"]
            elif frame["t"] == "patch":
                assert frame["base"] == self.version, f"a patch from {frame['base']} to a phone at {self.version}"
                assert self.tree_wire is not None
                self.tree_wire, self.version = apply(self.tree_wire, frame["ops"]), frame["v"]
        self.frames.extend(taken)
        self.last = taken
        return taken
