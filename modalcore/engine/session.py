"""One visitor's session, sans I/O: frames and messages in, frames and commands out.

The runtime feeds it client frames and command results with the current time; it answers with
the frames to send and the commands to run. Everything here is deterministic, which is what
record and replay rely on.
"""

from __future__ import annotations

import logging
import operator
from dataclasses import dataclass, field
from ..core.evolve import replace
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, assert_never

from ..chains.catalog import Network
from ..slices.connecting import Reattached
from ..slices.options import HostOptions
from ..slices.host import HOST_ACTIONS, HOST_NODE_ID
from ..slices.wallet_events import message_for
from ..views import BodyCache, render
from ..wire.framing import choose
from ..wire.frames import (
    AnnouncedWallet,
    ClientFrame,
    EffectResult,
    FrameError,
    Intent,
    Resync,
    WalletEvent,
    validate_args,
)
from ..wire.nodes import Node, path_to
from ..wire.serverframes import (AckStatus, EffectCancel, EffectRequest, HostEvent, IntentAck, Joined, Patch, ServerFrame,
                                 Snapshot, Theme, error_frame)
from . import hostevents, pending
from .connection import Connection
from ..core.cmds import (RUNTIME_EFFECT_KINDS, Call, CallSettled, CancelEffect, CancelTimer, Dispatch, Effect,
                         EffectSettled, EffectTo, StartTimer, Track, WalletAnswered)
from .interpret import RuntimeCmd
from .replies import typed, typed_effect
from ..slices.embedded import EMBEDDED_EFFECT
from ..slices.model import Model
from ..core.msg import Msg
from ..core.shape import Table
from .update import ENGINE, refusal, update

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from .tap import SessionTap

MAX_DISPATCH_DEPTH = 16


@dataclass
class Output:
    frames: list[ServerFrame] = field(default_factory=list)
    cmds: list[RuntimeCmd] = field(default_factory=list)  # run by engine/interpret.py

    def extend(self, other: Output) -> None:
        self.frames.extend(other.frames)
        self.cmds.extend(other.cmds)


class Session(Connection):
    """The Elm program of one visitor: model (the effects waiting on an answer are in it), table
    and the tree the client has, over its wire connection (`Connection`: numbering, the resend
    ring, tokens, rate limit)."""

    def __init__(self, session_id: str, model: Model, now: int, table: Table = ENGINE) -> None:
        super().__init__(now)
        self.id = session_id
        self.table = table  # message -> handler (tests pass their own)
        if model.session_id != session_id:
            model = replace(model, session_id=session_id)
        self.model = model
        self.bodies = BodyCache()  # this session's memo of view bodies
        # The tree the client has. An idle session drops it (`compact`): it is drawn again from
        # the model it was drawn from on next use.
        self._tree_model = model
        self._tree: Node | None = None
        self._used = True  # the tree was drawn or read since the last `compact_if_unused`
        self.tree = render(model, self.bodies)
        self.version = 0
        self.host_sent: dict[str, Any] = {}
        self._host_inputs: tuple[Any, ...] = ()
        self.theme_sent: dict[str, Any] | None = None
        self._theme_input: object = None  # the theme slice `theme_sent` was derived from
        self.snapshot_v = 0  # the tree version the latest snapshot carried
        self.acted = False  # one of its intents was applied (only then is it worth saving)
        self.recorder: SessionTap | None = None  # the recorder, observing inputs and outputs

    # ----- the effects waiting on an answer: in the model (engine/pending.py)
    @property
    def effects(self) -> dict[str, EffectTo]:
        """Effect id -> where its answer goes, for the effects the page or the runtime answers."""
        return pending.waiting(self.model, self.table.messages)

    @property
    def held(self) -> dict[str, EffectTo]:
        """The same for the request the engine answers as the embedded wallet."""
        return pending.waiting(self.model, self.table.messages, engine=True)

    def _settle(self, eid: str, *, engine: bool = False) -> EffectTo | None:
        self.model, to = pending.settle(self.model, eid, self.table.messages, engine=engine)
        return to

    # ----- the tree (dropped while idle, drawn again on demand)
    @property
    def tree(self) -> Node:
        tree = self._tree
        if tree is None:
            # drawn again from the very model the dropped tree was drawn from (views are pure):
            # the same tree the client has, whatever happened to the model since
            tree = self._tree = render(self._tree_model, self.bodies)
        self._used = True
        return tree

    @tree.setter
    def tree(self, tree: Node) -> None:
        """The tree of the current model was drawn."""
        self._tree, self._tree_model, self._used = tree, self.model, True

    @property
    def compacted(self) -> bool:
        return self._tree is None

    def compact(self) -> None:
        """Drop the tree and the view memo (an idle session's largest part, issue 17); the tree
        is drawn again on next use, identical."""
        self._tree = None
        self.bodies = BodyCache()

    def compact_if_unused(self) -> bool:
        """Compact when the tree was not used since the previous call; True when compacted now."""
        if self._used or self._tree is None:
            self._used = False
            return False
        self.compact()
        return True

    def snapshot(self, wire: Any = None, encoded: bytes | None = None) -> Snapshot:
        """A snapshot of the current tree (`wire`/`encoded`: its wire form and bytes, when the
        caller has them already)."""
        self.version += 1
        self.snapshot_v = self.version
        if wire is None:
            wire = self.tree.to_wire()
        frame = Snapshot(self._next(), self.in_seq, self.version, wire)
        self._keep(frame, {"tree": encoded} if encoded is not None else None)
        return frame

    def welcome(
        self,
        resume_token: str,
        *,
        resumed: bool,
        last: int | None,
        now: int = 0,
        wallets: Sequence[AnnouncedWallet] = (),
        options: HostOptions | None = None,
        networks: Sequence[Network] = (),
    ) -> Output:
        """Frames for a socket that just joined: `joined`, then missed frames or a snapshot.

        A resumed session learns the page's wallets again; after a reload (no `last`) the
        connection is re-synced with the wallet (behaviour.md §4, "On start").
        """
        if self.recorder:
            self.recorder.welcome(now, resume_token, resumed, last, list(wallets), options, networks)
        out = self._welcome(resume_token, resumed=resumed, last=last)
        if resumed:
            reattached = Reattached(tuple(wallets), last is None, options, tuple(networks))
            out.extend(self._deliver(reattached, now))
        if self.recorder:
            self.recorder.out(out.frames)
        return out

    def _welcome(self, resume_token: str, *, resumed: bool, last: int | None) -> Output:
        out = Output()
        missed = None
        if resumed and last is not None and last > self.out_seq:
            # The client saw frames this copy never numbered: the engine process that sent them
            # died before saving them (issue 17). Number on from there (the client ignores
            # frames it thinks it processed) and send a snapshot of the state as saved.
            self.out_seq = last
            self.ring.clear()
            self.ring_bytes = 0
        elif resumed and last is not None:
            missed = self._missed_since(last)
        out.frames.append(Joined(0, self.in_seq, self.id, resume_token, resumed))
        if missed is not None:
            out.frames.extend(missed)
            return out
        self.theme_sent = None
        self.host_sent = {}
        out.frames.extend(self._theme_frames())
        out.frames.append(self.snapshot())
        out.frames.extend(self._host_frames())
        return out

    # ----- frames in
    def receive(self, frame: ClientFrame, now: int) -> Output:
        if self.recorder:
            self.recorder.frame_in(now, frame)
        out = self._receive(frame, now)
        if self.recorder:
            self.recorder.out(out.frames)
        return out

    def _receive(self, frame: ClientFrame, now: int) -> Output:
        self.in_seq = max(self.in_seq, frame.s)
        self._ack(frame.a)
        if isinstance(frame, Intent):
            return self._intent(frame, now)
        if isinstance(frame, EffectResult):
            return self._effect_result(frame, now)
        if isinstance(frame, WalletEvent):
            return self._wallet_event(frame, now)
        if isinstance(frame, Resync):
            out = Output()
            if self.snapshot_v != self.version:  # else the snapshot of this version is on its way
                out.frames.append(self.snapshot())
            return out
        return Output()

    def _wallet_event(self, frame: WalletEvent, now: int) -> Output:
        """A wallet event is applied, or refused with an `error` frame (it has no ack): an input
        that would take the session past a total bound is `over_limit` (data of the wrong shape
        or over its own bounds never gets here: `wire/frames.WalletEvent` refuses it at the
        socket edge). A refused event changes nothing."""
        msg = message_for(frame)
        reason = refusal(self.model, msg, self.table)
        if reason is not None:
            return Output(frames=[error_frame("over_limit", reason, self.in_seq)])
        return self._deliver(msg, now)

    def _intent(self, frame: Intent, now: int) -> Output:
        out = Output()
        earlier = self.intents.get(frame.iid)
        if earlier is not None:
            out.frames.append(self._intent_ack(frame.iid, earlier))
            return out
        if not self._take_token(now):
            out.frames.append(self._intent_ack(frame.iid, "rate_limited"))
            return out
        try:
            msg = self._message_for(frame)
        except FrameError as error:
            status: AckStatus = "stale" if error.code == "stale" else "invalid"
            self._remember(frame.iid, status)
            out.frames.append(self._intent_ack(frame.iid, status, error.message))
            return out
        self._remember(frame.iid, "ok")
        self.acted = True
        out.frames.append(self._intent_ack(frame.iid, "ok"))
        out.extend(self._deliver(msg, now))
        return out

    def _intent_ack(self, iid: str, status: AckStatus, error: str | None = None) -> IntentAck:
        return self._keep(IntentAck(self._next(), self.in_seq, iid, status, error))

    def _message_for(self, frame: Intent) -> Msg:
        if frame.node == HOST_NODE_ID:
            handler: Any = HOST_ACTIONS.get(frame.act)
        else:
            path = path_to(self.tree, frame.node)
            if path is None or self._in_hidden(path):
                code = "stale" if self.acked < self.out_seq else "invalid"
                raise FrameError(code, f"no node {frame.node!r} in the current tree")
            handler = path[-1].handlers.get(frame.act)
        if handler is None:
            raise FrameError("invalid", f"{frame.node!r} offers no action {frame.act!r}")
        args = validate_args(frame.act, frame.args)
        message = handler if isinstance(handler, Msg) else handler(args)
        if not isinstance(message, Msg):
            raise FrameError("invalid", "the action has nothing to do")
        reason = refusal(self.model, message, self.table)
        if reason is not None:
            raise FrameError("invalid", reason)
        return message

    @staticmethod
    def _in_hidden(path: list[Node]) -> bool:
        """The node or one of its ancestors (`path`: from the root to it) is `hidden` (e.g. the
        view "back" would show): not drawn, so not pressable."""
        return any(node.p.get("hidden") is True for node in path)

    def _effect_result(self, frame: EffectResult, now: int) -> Output:
        to = self._settle(frame.eid)
        if to is None:
            return Output()  # cancelled, timed out or unknown: ignored
        error = frame.error
        settled = EffectSettled(
            eid=frame.eid,
            to=to,
            ok=frame.ok,
            result=frame.result if frame.ok else None,
            error_code=error.code if error and not frame.ok else 0,
            error_message=error.message if error and not frame.ok else "",
        )
        out = self._deliver(settled, now)
        out.cmds.insert(0, CancelTimer(f"effect:{frame.eid}"))
        return out

    # ----- messages in (command results, timers, wallet events)
    def deliver(self, msg: Msg, now: int) -> Output:
        if self.recorder:
            self.recorder.msg(now, msg)
        if isinstance(msg, EffectSettled) and not msg.timed_out:
            # the runtime's answer to an effect it ran (RUNTIME_EFFECT_KINDS): taken once, then
            # its timeout timer is cancelled; a late or unknown answer is ignored
            if self._settle(msg.eid) is None:
                out = Output()
            else:
                out = self._deliver(msg, now)
                out.cmds.insert(0, CancelTimer(f"effect:{msg.eid}"))
        else:
            out = self._deliver(msg, now)
        if self.recorder:
            self.recorder.out(out.frames)
        return out

    def _deliver(self, msg: Msg, now: int) -> Output:
        if isinstance(msg, EffectSettled) and msg.timed_out:  # the engine's timer, not an answer
            if self._settle(msg.eid) is None:
                return Output()
        if isinstance(msg, CallSettled):
            msg = typed(msg)  # the edge: a raw result becomes its typed Reply (engine/replies.py)
        elif isinstance(msg, EffectSettled):
            msg = typed_effect(msg)
        out = Output()
        out.cmds = self._step(msg, now, 0, out)
        out.frames.extend(self.render())
        return out

    def _step(self, msg: Msg, now: int, depth: int, out: Output) -> list[RuntimeCmd]:
        """Apply `msg`; what a command asks of the session itself is done within this step (a
        `Dispatch` fed at once, a browser effect sent as a frame with its time-out timer, a
        cancelled effect's frame), the rest is handed out (`engine/interpret.py` runs it)."""
        self.model, cmds = update(self.model, msg, now, self.table)
        remaining: list[RuntimeCmd] = []
        for cmd in cmds:
            match cmd:
                case Dispatch() if depth >= MAX_DISPATCH_DEPTH:
                    log.warning("session %s: dispatches nested past %d, dropped", self.id, depth)
                case Dispatch():
                    dispatched = self._dispatched(cmd)
                    if dispatched is not None:
                        remaining.extend(self._step(dispatched, now, depth + 1, out))
                case Effect() if cmd.kind == EMBEDDED_EFFECT:
                    # the engine is that wallet (flows/approval.py): the page never sees it; the
                    # model holds one such request at a time (`embedded.request`)
                    self.model = pending.expect(self.model, cmd.eid, cmd.to, engine=True)
                case Effect():
                    self.model = pending.expect(self.model, cmd.eid, cmd.to)
                    if cmd.kind in RUNTIME_EFFECT_KINDS:
                        remaining.append(cmd)  # the runtime runs it (runner.py); no frame
                    else:
                        out.frames.append(self._keep(EffectRequest(self._next(), self.in_seq, cmd.eid, cmd.kind,
                                                                   cmd.timeout_ms, cmd.req)))
                    timeout = EffectSettled(
                        cmd.eid, cmd.to, False, error_code=-32603, error_message="timeout", timed_out=True
                    )
                    remaining.append(StartTimer(f"effect:{cmd.eid}", cmd.timeout_ms, timeout))
                case CancelEffect():
                    if self._settle(cmd.eid) is not None:
                        out.frames.append(self._keep(EffectCancel(self._next(), self.in_seq, cmd.eid)))
                        remaining.append(CancelTimer(f"effect:{cmd.eid}"))
                case Call() | StartTimer() | CancelTimer() | Track():
                    remaining.append(cmd)
                case _:
                    assert_never(cmd)
        return remaining

    def _dispatched(self, cmd: Dispatch) -> Msg | None:
        """The message a `Dispatch` feeds: itself, or the typed answer of a request the engine
        answered as the embedded wallet (flows/wallet_answer.py; None when it holds no such request)."""
        msg = cmd.msg
        if not isinstance(msg, WalletAnswered):
            return msg
        to = self._settle(msg.eid, engine=True)
        if to is None:
            return None
        return typed_effect(EffectSettled(msg.eid, to, msg.ok, msg.result if msg.ok else None,
                                          msg.error_code, msg.error_message))

    def render(self) -> list[ServerFrame]:
        frames = self._theme_frames()
        tree = render(self.model, self.bodies)
        update = choose(self.tree, tree)
        self.tree = tree
        if update.ops is None:
            frames.append(self.snapshot(update.tree_wire, update.tree_bytes))
        elif update.ops:
            self.version += 1
            encoded = {"ops": update.ops_bytes} if update.ops_bytes is not None else None
            patch = Patch(self._next(), self.in_seq, self.version - 1, self.version, update.ops)
            frames.append(self._keep(patch, encoded))
        frames.extend(self._host_frames())
        return frames

    def _theme_frames(self) -> list[ServerFrame]:
        state = self.model.theme
        if self.theme_sent is not None and state is self._theme_input:
            return []  # the same (immutable) theme slice as last time: the frame it gives was sent
        self._theme_input = state
        variables = state.css_variables()
        theme = {"mode": state.mode, "vars": variables}
        if theme == self.theme_sent:
            return []
        self.theme_sent = theme
        return [self._keep(Theme(self._next(), self.in_seq, state.mode, variables))]

    def _host_frames(self) -> list[ServerFrame]:
        # Each host event reads a few slices (hostevents.KINDS); they are immutable, so when
        # they are the same objects as last time that event cannot have changed: it is not
        # derived again, nor compared.
        model = self.model
        now = hostevents.inputs(model)
        before = self._host_inputs if self.host_sent else ()
        changed = list(map(operator.is_not, now, before)) if before else None  # in C
        if changed is not None and not any(changed):
            return []
        self._host_inputs = now
        frames: list[ServerFrame] = []
        for kind, reads, derive in hostevents.KINDS:
            if changed is not None and not any(map(changed.__getitem__, reads)):
                continue
            data = derive(model)
            if data is not None and self.host_sent.get(kind) != data:
                self.host_sent[kind] = data
                frames.append(self._keep(HostEvent(self._next(), self.in_seq, kind, data)))
        return frames
