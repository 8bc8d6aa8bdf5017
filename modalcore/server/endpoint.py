"""The `/ws` endpoint: handshake (project, origin, join), then frames in to the session runner.

Nothing here raises out on bad input: every refused frame gets a typed `error` frame, and a
socket problem ends only that socket.
"""

from __future__ import annotations

import asyncio
import logging

from ..runtime.runner import SessionRunner
from ..slices.options import OptionsError
from ..rules.limits import TOO_LARGE_LIMIT
from ..wire.codec import MAX_FRAME_BYTES
from ..wire.frames import FrameError, Intent, Join, Leave, parse_client_frame
from .config import EngineConfig, Project
from .hub import Hub
from .tokens import Claim
from .metrics import MeteredOutlet, Metrics
from ..slices.doctor import Cause
from .handshake import CLOSE_TOO_MANY_SESSIONS as CLOSE_TOO_MANY_SESSIONS
from .handshake import Gone, Refused, close, first_frame, refuse, too_many
from .socket import Message, Socket, SocketClosed
from ..rules.texts import INVALID_APP_CONFIGURATION

log = logging.getLogger(__name__)

CLOSE_BAD_ORIGIN = 4001
CLOSE_NO_PROJECT = 4002
CLOSE_INVALID_OPTIONS = 1008
CLOSE_TOO_LARGE = 1009
CLOSE_ACCEPT_FAILED = 1011
ACCEPT_FAILED = "accept_failed"  # the close reason when the server could not accept the socket
WS_PATH = "/ws"
# The server answers frames up to this size itself; past it the websocket library closes 1009.
WS_MAX_SIZE = 256 * 1024


async def websocket_endpoint(ws: Socket, hub: Hub, config: EngineConfig, metrics: Metrics) -> None:
    outlet = MeteredOutlet(ws, metrics)  # what the runner sends through: counted
    try:
        await ws.accept()
    except (SocketClosed, OSError):
        return  # the client left before the handshake completed
    except Exception as error:
        # The server could not accept (issue 37: a uvicorn release broke on the scope): one
        # line, no traceback, and a typed close, never the server's HTTP 500 page.
        log.warning("websocket accept failed (%s): closed with %s", type(error).__name__,
                    ACCEPT_FAILED)
        await close(ws, CLOSE_ACCEPT_FAILED, ACCEPT_FAILED)
        return
    runner: SessionRunner | None = None
    address: str | None = None  # set while this socket counts toward its address's cap
    try:
        project_id, project, origin, join = await _opening(ws, config)
        # A token that does not verify, for any reason, means a new session (PROTOCOL.md, "Resume").
        claim = hub.read_token(join.resume, project_id, origin) if join.resume else None
        if not hub.addresses.admit(ws.client_host, claim.session_id if claim is not None else None):
            raise too_many(config.max_sessions_per_address)
        address = ws.client_host
        hub.engine_urls[project_id] = ws.engine_url or hub.engine_urls.get(project_id, "")
        runner = await _handshake(outlet, hub, project_id, project, origin, join, claim, address)
        # The socket's whole life is spent in _read_frames: this frame holds no join, claim or
        # project past the handshake (the parsed join and its options map, ~1.8 KiB per socket)
        del project, join, claim
        await _read_frames(ws, outlet, runner, metrics)
    except Refused as refused:
        if refused.code == "bad_origin":  # the session doctor's count (issue 44): no session to hold it
            metrics.failed("connect", Cause.ORIGIN_REFUSED.value, "")
        await refuse(ws, refused)
    except Gone:
        pass
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("websocket task failed")
        await close(ws, 1011)
    finally:
        if runner is not None:
            runner.detach(outlet)
        if address is not None:
            hub.addresses.release(address)


async def _opening(ws: Socket, config: EngineConfig) -> tuple[str, Project, str, Join]:
    """The socket's project, its page's origin and its join frame, all checked."""
    project_id = ws.project
    project = config.projects.get(project_id) if project_id else None
    if project is None:
        raise Refused("no_project", "Project ID is not configured", CLOSE_NO_PROJECT)
    origin = ws.origin
    if origin is None or not project.origin_policy().allows(origin):
        raise Refused("bad_origin", INVALID_APP_CONFIGURATION, CLOSE_BAD_ORIGIN)
    join = await first_frame(ws)
    if join.project != project_id:
        raise Refused("no_project", "Project ID does not match the socket's", CLOSE_NO_PROJECT)
    return project_id, project, origin, join


async def _handshake(outlet: MeteredOutlet, hub: Hub, project_id: str, project: Project, origin: str,
                     join: Join, claim: Claim | None, address: str) -> SessionRunner:
    """The session this admitted socket joins: the one its token claims, else a new one."""
    if claim is not None:
        options = None
        if join.last is None:  # a reloaded page: its createModal options are the truth
            try:
                options = hub.options(_with_project_features(join, project).opts)
            except OptionsError:
                options = None  # the stored options stay
        resumed = await hub.resume(
            claim, project_id, origin, outlet, join.last, join.wallets, options, address
        )
        if resumed is not None:
            return resumed
        if hub.addresses.over_cap(address):  # admitted only to take over that session's socket
            raise too_many(hub.config.max_sessions_per_address)
    join = _with_project_features(join, project)
    try:
        options = hub.options(join.opts)
    except OptionsError as error:
        raise Refused("invalid_options", str(error), CLOSE_INVALID_OPTIONS, goodbye=True) from error
    runner = await hub.create(origin, join, options, address)
    await runner.attach(outlet, hub.token_issuer(runner.id, project_id, origin), resumed=False,
                        last=None)
    return runner


def _with_project_features(join: Join, project: Project) -> Join:
    """The operator's feature overrides win over the host's (they are recorded as sent)."""
    if not project.features:
        return join
    features: object = join.opts.get("features")
    if features is None:
        merged: object = dict(project.features)
    elif isinstance(features, dict):
        merged = {**features, **project.features}
    else:
        return join  # not a map: parse_options reports it
    return join.model_copy(update={"opts": {**join.opts, "features": merged}})


async def _read_frames(ws: Socket, outlet: MeteredOutlet, runner: SessionRunner,
                       metrics: Metrics) -> None:
    # No local holds a frame while the next is awaited: an idle socket's coroutine kept its last
    # message, bytes and parsed frame (~0.6 KiB, issue 17's idle figure).
    reader = FrameReader(outlet, runner, metrics)
    while reader.take(await ws.receive()):
        pass


class FrameReader:
    """Hands each message a socket received to its session runner."""

    __slots__ = ("outlet", "runner", "metrics", "too_large")

    def __init__(self, outlet: MeteredOutlet, runner: SessionRunner, metrics: Metrics) -> None:
        self.outlet = outlet
        self.runner = runner
        self.metrics = metrics
        self.too_large = 0

    def take(self, message: Message) -> bool:
        """Pass one message on; False once the client has left."""
        if message["type"] == "websocket.disconnect":
            return False
        runner, outlet = self.runner, self.outlet
        data = message.get("bytes")
        if data is None:
            runner.send_error(outlet, "malformed", "text frames are refused: send binary msgpack")
            return True
        if len(data) > MAX_FRAME_BYTES:
            self.too_large += 1
            close = CLOSE_TOO_LARGE if self.too_large >= TOO_LARGE_LIMIT else None
            runner.send_error(outlet, "too_large", f"frames are at most {MAX_FRAME_BYTES} bytes",
                              close=close)
            return True
        try:
            frame = parse_client_frame(data)
        except FrameError as error:
            runner.send_error(outlet, error.code, error.message)
            return True
        if isinstance(frame, Join):
            runner.send_error(outlet, "malformed", "this socket has already joined")
            return True
        if isinstance(frame, Leave):
            runner.leave(outlet)
            return True
        if isinstance(frame, Intent):
            self.metrics.intent_read(frame)
        runner.put_frame(frame, outlet)
        return True
