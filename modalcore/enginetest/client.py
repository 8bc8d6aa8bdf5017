"""The client half of the harness: one `Session` on a fake clock, the frames a page sends it,
the timers it asks for, and the bookkeeping of what came back."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Self

from ..chains.catalog import Network
from ..core.msg import Msg
from ..core.shape import Table
from ..engine.interpret import RuntimeCmd, interpret
from ..engine.record import Recorder
from ..engine.output import Output
from ..engine.session import Session
from ..slices.model import Model, Step, initial_model
from ..slices.options import HostOptions, parse_options
from ..wire.frames import (
    AnnouncedWallet,
    ClientFrame,
    EffectResult,
    FrameError,
    Intent,
    Join,
    Resync,
    client_frame,
)
from ..wire.nodes import Node
from ..wire.registry import tree_errors
from ..wire.serverframes import Patch, Snapshot, error_frame, wire
from .fakehost import FakeCommandHost, Timer
from .models import build_model
from .table import HARNESS_TABLE, HarnessStepApplied


class SessionClient:
    """One session driven by a scripted client on a fake clock (milliseconds); `Harness` adds
    reading the screen, playing the wallet and the services, and checks."""

    def __init__(
        self,
        model: Model | None = None,
        *,
        now: int = 0,
        session_id: str = "session-1",
        token: str = "resume-token",
        recorder: Recorder | None = None,
        join: Join | None = None,
        origin: str = "http://localhost:8000",
        table: Table = HARNESS_TABLE,
        networks: Sequence[Network] = (),
        **build: Any,
    ) -> None:
        self.now = now
        if model is None:
            model = build_model(origin=origin, **build)
        self.session = Session(session_id, model, now, table)
        self.frames: list[dict[str, Any]] = []  # every server frame, in order
        self.last: list[dict[str, Any]] = []  # the frames of the latest call
        self.runtime = FakeCommandHost()  # what the runtime would do with the session's commands
        self.cmds: list[RuntimeCmd] = self.runtime.cmds  # commands other than timers, in order, until settled
        self.log: list[RuntimeCmd] = []  # every command the session handed out, in order (timers too)
        self.timers: dict[str, Timer] = self.runtime.timers
        self.client_seq = 0 if join is None else join.s
        self.server_seq = 0  # highest server `s` seen (acknowledged on the next frame)
        self._iids = 0
        # called with each step's output after the page took it (enginetest/companion.Phone's mirror)
        self.observers: list[Callable[[Output], None]] = []
        self.acks: dict[str, dict[str, Any]] = {}
        self.token = token
        self.wallets: list[AnnouncedWallet] = (
            list(join.wallets) if join is not None
            else [AnnouncedWallet.model_validate(dict(w)) for w in build.get("wallets", ())]
        )
        if recorder is not None:
            if join is None:
                raise ValueError("a recorded session starts with its join frame")
            offer = (model.embedded.email_offered, tuple(model.embedded.socials))  # the engine's offer, as the hub records it
            recorder.join(now, session_id, origin, join, networks, offer)  # `networks`: the operator's
            self.session.recorder = recorder
        self._take(self.session.welcome(token, resumed=False, last=None, now=now))

    @classmethod
    def from_join(
        cls,
        join: Mapping[str, Any],
        *,
        origin: str = "http://localhost:8000",
        **kwargs: Any,
    ) -> Self:
        """A session started by a `join` frame (fields after the envelope), as the server does."""
        frame = Join.model_validate({"t": "join", "s": 1, "a": 0, **join})
        model = initial_model(
            frame.project, origin, parse_options(frame.opts), frame.env, frame.wallets
        )
        return cls(model, join=frame, origin=origin, **kwargs)

    # ----- what the client holds

    @property
    def model(self) -> Model:
        return self.session.model

    @property
    def tree(self) -> Node:
        return self.session.tree

    # ----- client frames

    def _next_seq(self) -> int:
        self.client_seq += 1
        return self.client_seq

    def send(self, frame: ClientFrame) -> list[dict[str, Any]]:
        return self._take(self.session.receive(frame, self.now))

    def intent(
        self,
        node: str,
        act: str = "press",
        args: Mapping[str, object] | None = None,
        *,
        iid: str | None = None,
    ) -> str:
        """Send an intent; returns the status of its `intent_ack`."""
        if iid is None:
            self._iids += 1
            iid = f"i{self._iids}"
        frame = Intent(
            t="intent", s=self._next_seq(), a=self.server_seq, iid=iid, node=node, act=act,
            args=dict(args or {}),
        )
        frames = self.send(frame)
        ack = next(f for f in frames if f["t"] == "intent_ack" and f["iid"] == iid)
        self.acks[iid] = ack
        status: str = ack["status"]
        return status

    def press(self, node: str, *, iid: str | None = None) -> str:
        status = self.intent(node, "press", iid=iid)
        if status != "ok":
            raise AssertionError(f"press on {node!r} was {status}: {self.acks}")
        return status

    def host(self, act: str, **args: object) -> str:
        return self.intent("host", act, args)

    def effect_result(
        self,
        eid: str,
        *,
        ok: bool = True,
        result: object = None,
        code: int | None = None,
        message: str = "",
    ) -> list[dict[str, Any]]:
        fields: dict[str, object] = {"t": "effect_result", "s": self._next_seq(), "a": self.server_seq,
                                  "eid": eid, "ok": ok}
        if ok:
            fields["result"] = result
        else:
            fields["error"] = {"code": -32603 if code is None else code, "message": message}
        return self.send(EffectResult.model_validate(fields))

    def wallet_event(self, connector: str, event: str, data: object = None) -> list[dict[str, Any]]:
        """A wallet event through the socket edge, as the endpoint parses it: data of the wrong
        shape comes back as the `error` frame the socket sends."""
        try:
            frame = client_frame({
                "t": "wallet_event", "s": self._next_seq(), "a": self.server_seq,
                "connector": connector, "event": event, "data": data,
            })
        except FrameError as error:
            return [wire(error_frame(error.code, error.message, self.session.in_seq))]
        return self.send(frame)

    def resync(self, version: int = 0) -> list[dict[str, object]]:
        return self.send(Resync(t="resync", s=self._next_seq(), a=self.server_seq, v=version))

    def rejoin(
        self, *, last: int | None, wallets: Iterable[Mapping[str, object]] | None = None,
        options: HostOptions | None = None,
    ) -> list[dict[str, Any]]:
        """A new socket for this session: `last` when the page kept its tree, None after a
        reload. The page announces `wallets` again (by default the ones it joined with), and
        after a reload may bring new `options`."""
        announced = (
            self.wallets if wallets is None
            else [AnnouncedWallet.model_validate(dict(w)) for w in wallets]
        )
        out = self.session.welcome(self.token, resumed=True, last=last, now=self.now, wallets=announced,
                                   options=options)
        return self._take(out)

    # ----- messages and time

    def deliver(self, msg: Msg) -> list[dict[str, Any]]:
        return self._take(self.session.deliver(msg, self.now))

    def apply(self, step: Callable[[Model], Step]) -> list[dict[str, object]]:
        """Run a pure slice function `model -> (model, cmds)` through the session."""
        return self.deliver(HarnessStepApplied(step))

    def advance(self, ms: int) -> list[dict[str, Any]]:
        """Move the clock on by `ms`, firing every timer that falls due, earliest first."""
        target = self.now + ms
        frames: list[dict[str, object]] = []
        while (timer := self.runtime.next_due(target)) is not None:
            self.now = max(self.now, timer.due)
            frames.extend(self.deliver(timer.msg))
        self.now = target
        self.last = frames
        return frames

    def timer_due(self, key: str) -> int | None:
        return self.runtime.timer_due(key)

    # ----- bookkeeping

    def _take(self, out: Output) -> list[dict[str, Any]]:
        """The frames of one step as the page reads them (wire maps), the commands kept."""
        if any(isinstance(frame, (Snapshot, Patch)) for frame in out.frames):
            check_tree(self.session.tree)
        frames = [wire(frame) for frame in out.frames]
        for frame in out.frames:
            self.server_seq = max(self.server_seq, frame.s)
        self.frames.extend(frames)
        self.log.extend(out.cmds)
        interpret(out.cmds, self.runtime, self.now)  # the runtime's interpreter, on the fake host
        self.last = frames
        for observer in self.observers:
            observer(out)
        return self.last

    def take_output(self, out: Output) -> None:
        """A step's output the session gave another connection (a companion's intent), taken
        as this page's: its frames, its commands."""
        self._take(out)


def check_tree(tree: Node) -> None:
    """Every tree a test sees validates against the node registry (wire/registry.py)."""
    errors = tree_errors(tree.to_wire())
    if errors:
        raise AssertionError("the tree breaks the node contract:\n" + "\n".join(errors[:20]))
