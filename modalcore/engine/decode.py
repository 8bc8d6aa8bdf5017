"""The session's one decoder: every input becomes one typed `Msg` here, or nothing.

A session has these inputs, and only these (docs/contributors/architecture.md, "One path
through a session"):

- a client frame (`frame`): an intent (a node's action, found in the tree the client has, or an
  action of the virtual node `host`: `slices/host.HOST_ACTIONS`), an effect's answer, a wallet
  event, a resync;
- a message from the runtime (`message`): a service call's raw result (`CallSettled`, typed by
  `engine/replies.py`), a runtime effect's answer or an effect's time-out (`EffectSettled`), a
  timer's message, a relay or chain event (already typed);
- a `Dispatch` a step fed back (`dispatched`): its message, or the embedded wallet's answer
  (`WalletAnswered`) to the request the engine holds.

An answer settles the pending effect it names in the model (`engine/pending.py`) once; an
unknown, late or cancelled one decodes to nothing. What an input gives besides its message (an
intent's ack, an effect's time-out timer to cancel, a refusal) is in the `Output` it returns; the
session then runs `update` on the message, draws, diffs and interprets (`engine/session.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import CallSettled, CancelTimer, Dispatch, EffectSettled, EffectTo, WalletAnswered
from ..core.msg import Msg
from ..slices.host import HOST_ACTIONS, HOST_NODE_ID
from ..slices.wallet_events import WalletAccountsChanged, WalletAnnounced, WalletChainChanged, WalletDisconnected
from ..wire.frames import AnnouncedWallet, ClientFrame, EffectResult, FrameError, Intent, Resync, WalletEvent, validate_args
from ..wire.nodes import Node, path_to
from ..wire.serverframes import AckStatus, error_frame
from . import pending
from .output import Output
from .replies import typed, typed_effect
from .update import refusal

if TYPE_CHECKING:
    from .companion import Companion
    from .session import Session

NO_WALLETS = "a companion announces no wallets"
NOT_THE_HOSTS = "the host's actions are the host page's"

Decoded = tuple[Output, Msg | None]  # what the input gives at once, and the message `update` sees


def frame(session: Session, frame: ClientFrame, now: int, conn: Session | Companion | None = None) -> Decoded:
    """A client frame (already strict at the socket edge, `wire/frames.py`) that came over `conn`:
    the host page's (the session's own connection, the default) or the linked phone's companion
    (PROTOCOL.md, "Companion"), whose acks and snapshots are its own and which may not act for
    the host page (its actions, its wallets)."""
    wire = session if conn is None else conn
    match frame:
        case Intent():
            return _intent(session, wire, frame, now)
        case EffectResult():
            to = _settle(session, frame.eid)
            if to is None:
                return Output(), None  # cancelled, timed out or unknown: ignored
            error = frame.error if not frame.ok else None
            return _answered(EffectSettled(frame.eid, to, frame.ok, frame.result if frame.ok else None,
                                           error.code if error else 0, error.message if error else ""))
        case WalletEvent() if wire is not session:
            return Output(frames=[error_frame("malformed", NO_WALLETS, wire.in_seq)]), None
        case WalletEvent():
            return _wallet_event(session, frame)
        case Resync():
            out = Output()
            if wire.snapshot_v != wire.version:  # else the snapshot of this version is on its way
                out.frames.append(wire.snapshot())
            return out, None
    return Output(), None


def message(session: Session, msg: Msg) -> Decoded:
    """A message from the runtime: a command's result, a timer's message, an event."""
    if isinstance(msg, EffectSettled):  # a runtime effect's answer, or an effect's time-out
        if _settle(session, msg.eid) is None:
            return Output(), None  # cancelled, answered already or unknown: ignored
        return _answered(msg)
    if isinstance(msg, CallSettled):
        return Output(), typed(msg)  # a raw result becomes its typed Reply (engine/replies.py)
    return Output(), msg


def dispatched(session: Session, cmd: Dispatch) -> Msg | None:
    """The message a `Dispatch` feeds: itself, or the typed answer of the request the engine
    held as the embedded wallet (flows/wallet_answer.py; None when it holds no such request)."""
    msg = cmd.msg
    if not isinstance(msg, WalletAnswered):
        return msg
    to = _settle(session, msg.eid, engine=True)
    if to is None:
        return None
    return typed_effect(EffectSettled(msg.eid, to, msg.ok, msg.result if msg.ok else None,
                                      msg.error_code, msg.error_message))


# ----- effects' answers
def _settle(session: Session, eid: str, *, engine: bool = False) -> EffectTo | None:
    """The pending effect `eid` taken once from the model: where its answer goes."""
    session.model, to = pending.settle(session.model, eid, session.table.messages, engine=engine)
    return to


def _answered(settled: EffectSettled) -> Decoded:
    """A settled effect's typed answer; its time-out timer is cancelled (unless it fired)."""
    out = Output()
    if not settled.timed_out:
        out.cmds.append(CancelTimer(f"effect:{settled.eid}"))
    return out, typed_effect(settled)


# ----- wallet events
def _wallet_event(session: Session, frame: WalletEvent) -> Decoded:
    """Applied, or refused with an `error` frame (it has no ack): an input that would take the
    session past a total bound is `over_limit` (data of the wrong shape or over its own bounds
    never gets here: `wire/frames.WalletEvent` refuses it at the socket edge). A refused event
    changes nothing."""
    msg = wallet_message(frame)
    reason = refusal(session.model, msg, session.table)
    if reason is not None:
        return Output(frames=[error_frame("over_limit", reason, session.in_seq)]), None
    return Output(), msg


def wallet_message(frame: WalletEvent) -> Msg:
    """The message for a wallet event (its data was validated at the socket edge,
    `wire/frames.WalletEvent.payload`)."""
    data = frame.payload
    if isinstance(data, AnnouncedWallet):
        return WalletAnnounced(data.uuid, data.name, data.icon, data.rdns, tuple(data.namespaces))
    if isinstance(data, tuple):
        return WalletAccountsChanged(frame.connector, data)
    if isinstance(data, str):
        return WalletChainChanged(frame.connector, data)
    return WalletDisconnected(frame.connector)


# ----- intents
def _intent(session: Session, wire: Session | Companion, frame: Intent, now: int) -> Decoded:
    """Acked once per intent id (a repeated one gets its first ack again), rate limited, then
    decoded to its node's message; a stale or invalid one is acked so and changes nothing. The
    ids, the rate, the acks and the tree its node is looked up in are the connection's (`wire`);
    the model the session's."""
    out = Output()
    earlier = wire.intents.get(frame.iid)
    if earlier is not None:
        out.frames.append(wire.intent_ack(frame.iid, earlier))
        return out, None
    if not wire.take_token(now):
        out.frames.append(wire.intent_ack(frame.iid, "rate_limited"))
        return out, None
    try:
        msg = _intent_message(session, wire, frame)
    except FrameError as error:
        status: AckStatus = "stale" if error.code == "stale" else "invalid"
        wire.remember(frame.iid, status)
        out.frames.append(wire.intent_ack(frame.iid, status, error.message))
        return out, None
    wire.remember(frame.iid, "ok")
    session.acted = True
    out.frames.append(wire.intent_ack(frame.iid, "ok"))
    return out, msg


def _intent_message(session: Session, wire: Session | Companion, frame: Intent) -> Msg:
    """The message of the node's action: the node's handler (a message, or a function of the
    action's validated args, `wire/frames.ACTION_ARGS`), or the host's (the host page's only)."""
    if frame.node == HOST_NODE_ID:
        if wire is not session:
            raise FrameError("invalid", NOT_THE_HOSTS)
        handler: object = HOST_ACTIONS.get(frame.act)
    else:
        # the tree of the connection the intent came over: a node only the phone's screen draws
        # (its approval frame, its deep link) is no node of the host page's, and back
        tree = session.tree if wire is session else wire.tree
        path = path_to(tree, frame.node) if tree is not None else None
        if path is None or _in_hidden(path):
            code = "stale" if wire.acked < wire.out_seq else "invalid"
            raise FrameError(code, f"no node {frame.node!r} in the current tree")
        handler = path[-1].handlers.get(frame.act)
    if handler is None:
        raise FrameError("invalid", f"{frame.node!r} offers no action {frame.act!r}")
    args = validate_args(frame.act, frame.args)
    message = handler if isinstance(handler, Msg) else handler(args) if callable(handler) else None
    if not isinstance(message, Msg):
        raise FrameError("invalid", "the action has nothing to do")
    reason = refusal(session.model, message, session.table)
    if reason is not None:
        raise FrameError("invalid", reason)
    return message


def _in_hidden(path: list[Node]) -> bool:
    """The node or one of its ancestors (`path`: from the root to it) is `hidden` (e.g. the view
    "back" would show): not drawn, so not pressable."""
    return any(node.p.get("hidden") is True for node in path)
