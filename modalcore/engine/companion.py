"""A session's second live connection: the linked phone (PROTOCOL.md, "Companion"; issue 44).

The companion is a wire connection of its own (`Connection`: its frames numbered from 1, its
acknowledgements, intent ids and rate limit; no resend ring: a companion is never resumed, so
nothing would replay what the ring kept) over the session's one model: its
intents are the session's (the same `update`, so a press on either screen moves both), and
after every step the tree the session drew is sent to it as its own patch or snapshot (the
host's patch ops reused when the companion had the tree they apply to: the tree is diffed once).
The tree is drawn for the phone's screen (`screen`, views/screens.py): while a view drawn is one
that differs by screen (ApproveTransaction: the phone's approval frame, not "Waiting for your
phone") or the screen's device kind is not the host page's (a phone's deep links, not a QR code),
the companion draws its own tree (its own memo of bodies) and diffs it against the one it has.
Its intents name nodes of the tree it has, never the host page's (engine/decode.py).

What stays the host page's: `host_event` frames (never mirrored), wallet requests (`eip1193`,
`solana`, `discover`: the phone's page announces no wallets). An effect an intent of the
companion caused (`clipboard`, `open_url`) goes to the companion; the host's ring holds an
`effect_cancel` of the same number instead (`Connection.withhold`).

Nothing here is saved (engine/persist.py saves the `Session`, which does not hold this): after a
drop the phone joins again with a fresh signature. A recording (`Session.recorder`) has the
companion's join (its public key only), its frames in and its frames out (engine/record.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..slices.handoff import linked_key
from ..views import BodyCache, render, screened
from ..views.screens import Screen, companion_screen
from ..wire.framing import PackedParts, choose
from ..wire.frames import ClientFrame, Intent
from ..wire.nodes import Node
from ..wire.serverframes import EffectRequest, Joined, Patch, ServerFrame, Snapshot, Theme, WireOps, drawn_snapshot, encoded
from . import decode
from .connection import F, Connection
from .output import Output
from .session import Session

# the effects an intent of the companion sends to the companion rather than to the host page
COMPANION_EFFECTS = frozenset({"clipboard", "open_url"})
NOT_LINKED = "this phone is no longer linked to the session"  # the `not_linked` error's text


class Companion(Connection):
    """The phone's connection to `session` (at most one per session: the runner holds it)."""

    def __init__(self, session: Session, now: int, public_key: str, screen: Screen | None = None) -> None:
        super().__init__(now)
        self._screen = screen  # what this connection's screen is (None: the device the session was continued on)
        self.bodies = BodyCache()  # its memo of view bodies, while it draws a tree of its own
        self.packed = PackedParts()
        self.joined_at = now
        self.session = session
        self.public_key = public_key  # the phone's key the computer confirmed
        self.tree: Node | None = None  # the tree this connection has
        self.version = 0
        self.snapshot_v = 0
        self.host_version = -1  # the session's tree version `tree` is (a host patch from it applies here)
        self.theme_sent: dict[str, object] | None = None  # the session's map last sent here (compared by identity)

    @property
    def screen(self) -> Screen:
        """The screen this connection's views are drawn for (views/screens.py)."""
        return self._screen if self._screen is not None else companion_screen(self.session.model)

    @property
    def linked(self) -> bool:
        """The session still links this phone (No, or another account signed in, unlinks it:
        then the runner closes the companion before it is sent anything more)."""
        return linked_key(self.session.model) == self.public_key

    # ----- frames out
    def _keep(self, frame: F, known: dict[str, bytes] | None = None) -> F:
        """The frame, encoded once (`known`: bytes of field values already packed) and not kept:
        the companion resumes nothing (after a drop it joins afresh and gets a snapshot)."""
        encoded(frame, known)
        return frame

    def welcome(self) -> list[ServerFrame]:
        """`joined` (no resume token: a companion is never resumed), the theme, a snapshot."""
        self.theme_sent = None
        frames: list[ServerFrame] = [Joined(0, self.in_seq, self.session.id, "", False)]
        frames.extend(self._theme_frames())
        frames.append(self.snapshot())
        if self.session.recorder:
            self.session.recorder.companion_join(self.joined_at, self.public_key)
            self.session.recorder.companion_out(frames)
        return frames

    def mirror(self, host_frames: Sequence[ServerFrame] = ()) -> list[ServerFrame]:
        """The companion's frames after a step of the session whose frames to the host page were
        `host_frames`: the theme if it changed, the tree as a patch or a snapshot; nothing when
        the companion has the session's tree already."""
        frames = self._mirror(host_frames)
        if frames and self.session.recorder:
            self.session.recorder.companion_out(frames)
        return frames

    def _mirror(self, host_frames: Sequence[ServerFrame]) -> list[ServerFrame]:
        frames = self._theme_frames()
        session = self.session
        if self.tree is None:
            return frames  # not welcomed yet
        own = screened(session.model, self.screen)
        if session.compacted and not own:
            return frames  # an idle session's tree is the one it last sent: the companion has it
        tree = self._drawn() if own else session.tree
        if tree is self.tree:
            return frames
        reused = None if own else self._host_patch(host_frames)
        if reused is not None:
            self.version += 1
            frames.append(self._keep(Patch(self._next(), self.in_seq, self.version - 1, self.version, reused)))
        else:
            update = choose(self.tree, tree, self.packed if own else session.packed)
            if update.ops is None:
                frames.append(self.snapshot(update.tree_bytes, tree))
            elif update.ops:
                self.version += 1
                known = {"ops": update.ops_bytes} if update.ops_bytes is not None else None
                frames.append(self._keep(Patch(self._next(), self.in_seq, self.version - 1, self.version,
                                               update.ops), known))
        self.tree, self.host_version = tree, session.version if not own else -1
        return frames

    def _drawn(self) -> Node:
        """The tree of the session's model for this connection's screen."""
        return render(self.session.model, self.bodies, self.screen)

    def _host_patch(self, host_frames: Sequence[ServerFrame]) -> WireOps | None:
        """The ops of the host's one patch of this step, when they apply to the companion's tree."""
        trees = [frame for frame in host_frames if isinstance(frame, (Patch, Snapshot))]
        if len(trees) != 1 or not isinstance(trees[0], Patch):
            return None
        patch = trees[0]
        if patch.base != self.host_version or patch.v != self.session.version:
            return None
        return list(patch.ops)

    def snapshot(self, encoded: bytes | None = None, tree: Node | None = None) -> Snapshot:
        """A snapshot of the tree this screen draws now (`tree`, and its bytes, when the caller
        has them; a resync passes none); its wire tree is drawn only if someone reads it."""
        session = self.session
        own = screened(session.model, self.screen)
        if tree is None:
            tree = self._drawn() if own else session.tree
        self.version += 1
        self.snapshot_v = self.version
        frame = drawn_snapshot(self._next(), self.in_seq, self.version, tree.to_wire)
        self._keep(frame, {"tree": encoded} if encoded is not None else None)
        self.tree, self.host_version = tree, session.version if not own else -1
        return frame

    def _theme_frames(self) -> list[ServerFrame]:
        """The theme the session last sent the host page, when this connection has not had it
        (the session derives it once per change: `Session.theme_sent` is a new map then)."""
        theme = self.session.theme_sent
        if theme is None or theme is self.theme_sent:
            return []
        self.theme_sent = theme
        return [self._keep(Theme(self._next(), self.in_seq, theme["mode"], theme["vars"]))]

    # ----- frames in
    def receive(self, frame: ClientFrame, now: int) -> tuple[list[ServerFrame], Output]:
        """A frame from the phone: (the companion's frames, the session's output for the host
        page and the runtime: its frames, its commands). Decoded by the session's one decoder
        over this connection (its acks, ids and rate are its own; the host's actions and
        wallets are not its). Recorded as the companion's input, the host page's frames and the
        companion's (when the phone is still linked: else the runner sends it none)."""
        recorder, self.session.recorder = self.session.recorder, None  # not as a step of the host's
        try:
            mine, out = self._receive(frame, now)
        finally:
            self.session.recorder = recorder
        if recorder:
            recorder.companion_in(now, frame)
            recorder.out(out.frames)
            recorder.companion_out(mine if self.linked else [])
        return mine, out

    def _receive(self, frame: ClientFrame, now: int) -> tuple[list[ServerFrame], Output]:
        self.in_seq = max(self.in_seq, frame.s)
        self._ack(frame.a)
        session = self.session
        mine, msg = decode.frame(session, frame, now, conn=self)
        if msg is None:
            return mine.frames, Output(cmds=mine.cmds)
        out = session.deliver(msg, now)
        out.cmds[:0] = mine.cmds  # an answered effect's time-out timer, cancelled
        own = [f for f in out.frames if isinstance(f, EffectRequest) and f.kind in COMPANION_EFFECTS]
        if own and isinstance(frame, Intent):
            out.frames = session.withhold(out.frames, {f.eid for f in own})
        else:
            own = []
        frames = [*mine.frames, *self._mirror(out.frames)]
        frames.extend(self._keep(EffectRequest(self._next(), self.in_seq, f.eid, f.kind, f.timeout, f.req))
                      for f in own)
        return frames, out
