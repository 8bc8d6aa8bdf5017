"""One visitor's session, sans I/O: frames and messages in, frames and commands out.

The runtime feeds it client frames and command results with the current time; it answers with
the frames to send and the commands to run. Each input goes one way: decoded to one typed message
(`engine/decode.py`), `update`, the tree drawn and diffed, the commands interpreted (what the
session does itself here, the rest handed out: `engine/interpret.py`). Everything here is
deterministic, which is what record and replay rely on.
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, assert_never

from ..chains.catalog import Network
from ..core.cmds import RUNTIME_EFFECT_KINDS, Call, CancelEffect, CancelTimer, Dispatch, Effect, EffectSettled, EffectTo, StartTimer, Track
from ..core.evolve import replace
from ..core.msg import Msg
from ..core.shape import Table
from ..slices.connecting import Reattached
from ..slices.embedded import EMBEDDED_EFFECT
from ..slices.model import Model
from ..slices.options import HostOptions
from ..views import BodyCache, render
from ..wire.framing import PackedParts, choose
from ..wire.frames import AnnouncedWallet, ClientFrame
from ..wire.nodes import Node
from ..wire.serverframes import EffectCancel, EffectRequest, HostEvent, Joined, Patch, ServerFrame, Snapshot, Theme, drawn_snapshot, effect_kind
from . import decode, hostevents, pending
from .connection import Connection
from .interpret import RuntimeCmd
from .output import Output
from .update import ENGINE, update

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from .tap import SessionTap

MAX_DISPATCH_DEPTH = 16


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
        self.packed = PackedParts()  # the bytes of the views its last snapshot packed
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
        self.packed = PackedParts()

    def compact_if_unused(self) -> bool:
        """Compact when the tree was not used since the previous call; True when compacted now."""
        if self._used or self._tree is None:
            self._used = False
            return False
        self.compact()
        return True

    def snapshot(self, encoded: bytes | None = None) -> Snapshot:
        """A snapshot of the current tree (`encoded`: its bytes, when the caller has them
        already); its wire tree is drawn from the node only if someone reads it."""
        self.version += 1
        self.snapshot_v = self.version
        frame = drawn_snapshot(self._next(), self.in_seq, self.version, self.tree.to_wire)
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
            out.extend(self._run(*decode.message(self, reattached), now))
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

    # ----- inputs: decode -> update -> draw and diff -> interpret
    def receive(self, frame: ClientFrame, now: int) -> Output:
        """A client frame."""
        if self.recorder:
            self.recorder.frame_in(now, frame)
        self.in_seq = max(self.in_seq, frame.s)
        self._ack(frame.a)
        out = self._run(*decode.frame(self, frame, now), now)
        if self.recorder:
            self.recorder.out(out.frames)
        return out

    def deliver(self, msg: Msg, now: int) -> Output:
        """A message from the runtime (a command's result, a timer's message, an event)."""
        if self.recorder:
            self.recorder.msg(now, msg)
        out = self._run(*decode.message(self, msg), now)
        if self.recorder:
            self.recorder.out(out.frames)
        return out

    def _run(self, out: Output, msg: Msg | None, now: int) -> Output:
        """`update` on the decoded message (with what it dispatches), then the tree drawn and diffed;
        `out` holds what the decoder gave at once (an ack, an effect's timer to cancel)."""
        if msg is not None:
            out.cmds.extend(self._step(msg, now, 0, out))
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
                    dispatched = decode.dispatched(self, cmd)
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
                        out.frames.append(self._keep(EffectRequest(
                            self._next(), self.in_seq, cmd.eid, effect_kind(cmd.kind), cmd.timeout_ms, cmd.req)))
                    timeout = EffectSettled(
                        cmd.eid, cmd.to, False, error_code=-32603, error_message="timeout", timed_out=True
                    )
                    remaining.append(StartTimer(f"effect:{cmd.eid}", cmd.timeout_ms, timeout))
                case CancelEffect():
                    self.model, to = pending.settle(self.model, cmd.eid, self.table.messages)
                    if to is not None:
                        out.frames.append(self._keep(EffectCancel(self._next(), self.in_seq, cmd.eid)))
                        remaining.append(CancelTimer(f"effect:{cmd.eid}"))
                case Call() | StartTimer() | CancelTimer() | Track():
                    remaining.append(cmd)
                case _:
                    assert_never(cmd)
        return remaining

    def render(self) -> list[ServerFrame]:
        frames = self._theme_frames()
        tree = render(self.model, self.bodies)
        update = choose(self.tree, tree, self.packed)
        self.tree = tree
        if update.ops is None:
            frames.append(self.snapshot(update.tree_bytes))
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
