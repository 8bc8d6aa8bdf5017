"""Test helpers: a real uvicorn server in a thread, and a websocket client speaking the protocol.

Use from a conftest.py:

    from modalcore_testing import running_server  # noqa: F401  (a pytest fixture)

    async def test_open(running_server):
        async with running_server.client() as client:
            await client.join()
            ...

`start_server(config, **create_app_kwargs)` starts one by hand (a context manager), e.g. to
restart an engine on the same SQLite file.

Without sockets: `async with runner_rig() as rig:` gives a started SessionRunner on a FakeClock
with a FakeOutlet attached (`rig.outlet.frames`), for timer and command tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from modalcore.slices.model import initial_model
from modalcore.core.msg import Msg
from modalcore.engine.record import Recorder
from modalcore.engine.session import Session
from modalcore.core.shape import Table
from modalcore.engine.update import ENGINE
from modalcore.runtime.analytics import MemorySink
from modalcore.ports.clock import Clock
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.runner import RunnerDeps, SessionRunner
from modalcore.runtime.services import ServiceRegistry, default_services
from modalcore.server.app import create_app, uvicorn_options
from modalcore_dev.rigs import dev_rigs
from modalcore.server.config import EngineConfig, parse_config
from modalcore.server.hub import Hub
from modalcore.slices.options import parse_options
from modalcore.store.base import NO_BLOBS
from modalcore.store.memory import MemoryStore
from modalcore.wire.codec import decode, encode
from modalcore.wire.frames import Env

TEST_PROJECT = "test"
TEST_ORIGIN = "https://app.example.com"
TEST_SECRET = "test-secret-not-for-production"
HOST = "127.0.0.1"


def make_test_config(**overrides: Any) -> EngineConfig:
    """One project `test` allowing https://app.example.com (plus the defaults), memory store."""
    data: dict[str, Any] = {
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Test dApp", "origins": [TEST_ORIGIN]}},
    }
    data.update(overrides)
    return parse_config(data)


class RunningServer:
    def __init__(self, app: Starlette, server: uvicorn.Server, thread: threading.Thread) -> None:
        self.app = app
        self.server = server
        self.thread = thread
        sockets = server.servers[0].sockets
        self.port: int = sockets[0].getsockname()[1]

    @property
    def hub(self) -> Hub:
        hub: Hub = self.app.state.hub
        return hub

    @property
    def http_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def ws_url(self, project: str | None = TEST_PROJECT) -> str:
        base = f"ws://{HOST}:{self.port}/ws"
        return base if project is None else f"{base}?project={project}"

    def client(
        self, *, project: str | None = TEST_PROJECT, origin: str | None = TEST_ORIGIN
    ) -> contextlib.AbstractAsyncContextManager[Client]:
        return Client.open(self.ws_url(project), origin=origin, project=project or "")

    def wait_for(self, condition: Callable[[], bool], timeout: float = 5.0) -> None:
        """Poll a condition on the server's state (which lives in the server's thread)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("condition not met in time")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        if self.thread.is_alive():
            raise RuntimeError("uvicorn did not stop")


@contextlib.contextmanager
def start_server(config: EngineConfig | None = None, **app_kwargs: Any) -> Iterator[RunningServer]:
    """Run `create_app(config, **app_kwargs)` (with the dev rigs the config turns on) under uvicorn on a free port in a thread."""
    config = config or make_test_config()
    with serve_app(create_app(config, **{"rigs": dev_rigs(config), **app_kwargs})) as running:
        yield running


@contextlib.contextmanager
def serve_app(app: Starlette, port: int = 0) -> Iterator[RunningServer]:
    """Run any ASGI app under uvicorn on 127.0.0.1 in a thread: on a free port, or on `port`
    (reusable at once, so a test can restart an engine where the page expects it)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    uv_config = uvicorn.Config(app, log_level="warning", lifespan="on", **uvicorn_options())
    server = uvicorn.Server(uv_config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    running = RunningServer(app, server, thread)
    try:
        yield running
    finally:
        running.stop()
        sock.close()


@pytest.fixture(scope="module")
def running_server() -> Iterator[RunningServer]:
    """A server with `make_test_config()` for the whole test module."""
    with start_server() as server:
        yield server


def join_frame(project: str = TEST_PROJECT, **fields: Any) -> dict[str, Any]:
    frame: dict[str, Any] = {
        "t": "join", "s": 1, "a": 0, "project": project,
        "env": {"platform": "linux", "timezone": "UTC", "width": 1280},
        "opts": {"networks": ["eip155:1"], "metadata": {"name": "Test dApp"}},
        "wallets": [],
    }
    frame.update(fields)
    return frame


class Client:
    """One socket: numbered client frames, decoded server frames, ack tracking."""

    def __init__(self, ws: ClientConnection, project: str) -> None:
        self.ws = ws
        self.project = project
        self.seq = 0  # last client sequence number sent
        self.last = 0  # highest server `s` received
        self.session = ""
        self.resume = ""
        self.frames: list[dict[str, Any]] = []  # every server frame received (acks excluded)
        self._iids = itertools.count(1)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls, url: str, *, origin: str | None = TEST_ORIGIN, project: str = TEST_PROJECT,
        seq: int = 0,
    ) -> AsyncIterator[Client]:
        headers = {"Origin": origin} if origin is not None else {}
        async with connect(url, additional_headers=headers, max_size=2**22,
                           open_timeout=5, close_timeout=2) as ws:
            client = cls(ws, project)
            client.seq = seq
            yield client

    def carry_on(self, before: Client) -> None:
        """The same page on a new socket: its intent ids go on from `before`'s (a session
        acknowledges an id it already applied and does not apply it again)."""
        self._iids = before._iids

    async def send(self, frame: dict[str, Any], *, number: bool = True) -> dict[str, Any]:
        """Send a frame; fills `s` (next number) and `a` (last server seq) unless given."""
        frame = dict(frame)
        if number and "s" not in frame:
            self.seq += 1
            frame["s"] = self.seq
        frame.setdefault("a", self.last)
        await self.ws.send(encode(frame))
        return frame

    async def send_raw(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next server frame that is not a bare `ack`."""
        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout)
            if not isinstance(data, bytes):
                raise AssertionError(f"the server sent a text frame: {data!r}")
            frame = decode(data)
            if frame.get("t") == "ack":
                continue
            self.frames.append(frame)
            if frame.get("s", 0) > self.last:
                self.last = frame["s"]
            if frame.get("t") == "joined":
                self.session = frame["session"]
                self.resume = frame["resume"]
            return frame  # type: ignore[no-any-return]

    async def recv_until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5.0
    ) -> list[dict[str, Any]]:
        """Frames up to and including the first one matching `predicate`."""
        got: list[dict[str, Any]] = []
        while True:
            frame = await self.recv(timeout)
            got.append(frame)
            if predicate(frame):
                return got

    async def quiet(self, timeout: float = 0.3) -> list[dict[str, Any]]:
        """Whatever arrives within `timeout` (for asserting that nothing more comes)."""
        got: list[dict[str, Any]] = []
        with contextlib.suppress(TimeoutError):
            while True:
                got.append(await self.recv(timeout))
        return got

    async def join(self, **fields: Any) -> list[dict[str, Any]]:
        """Send `join`; the frames of the welcome up to the last `host_event` or missed frame."""
        self.seq += 1
        project = fields.pop("project", self.project)
        frame = join_frame(project, **fields)
        frame.update(s=self.seq, a=self.last)
        await self.send(frame)
        frames = await self.recv_until(lambda f: f["t"] in ("joined", "error", "goodbye"))
        if frames[-1]["t"] != "joined":
            return frames
        return frames + await self.quiet(0.15)

    async def intent(
        self, node: str, act: str, args: dict[str, Any] | None = None, *, iid: str | None = None
    ) -> dict[str, Any]:
        frame = {"t": "intent", "iid": iid or f"i{next(self._iids)}", "node": node, "act": act,
                 "args": args or {}}
        return await self.send(frame)

    async def closed(self, timeout: float = 5.0) -> int | None:
        """Wait for the server to close; the close code."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.recv(timeout)
        return self.ws.close_code


def find_node(tree: dict[str, Any] | None, node_id: str) -> dict[str, Any] | None:
    """The node `node_id` of a wire tree (a snapshot's, patched), or None."""
    stack = [tree] if tree else []
    while stack:
        current = stack.pop()
        if current["id"] == node_id:
            return current
        stack.extend(current.get("c", ()))
    return None


class DownStore(MemoryStore):
    """A memory store whose saves fail while `down` (as Redis's do while it is stopped, issue
    27); `attempts` counts the saves tried, `written` keeps those that landed."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.attempts = 0
        self.written: list[tuple[str, bytes]] = []

    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        self.attempts += 1
        if self.down:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        self.written.append((session_id, data))
        await super().save(session_id, data, now_ms, blobs)


def recordings(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.jsonl"))


# ----- a session runner without sockets, on a FakeClock
class FakeOutlet:
    """Stands in for a websocket: keeps the decoded frames sent to it and its close code."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.closed: int | None = None
        self.fail = False

    async def send_bytes(self, data: bytes) -> None:
        if self.fail or self.closed is not None:
            raise RuntimeError("socket closed")
        self.frames.append(decode(data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = code

    def take(self) -> list[dict[str, Any]]:
        frames, self.frames = self.frames, []
        return frames

    def types(self) -> list[str]:
        return [frame["t"] for frame in self.frames]


@dataclass
class RunnerRig:
    """A started SessionRunner with a FakeOutlet attached, a FakeClock and in-memory everything.

    `await rig.advance(ms)` moves the clock and waits until the runner has processed what fell
    due (timers, their commands, service calls). `rig.recorded()` is the session's recording.
    """

    clock: FakeClock
    services: ServiceRegistry
    analytics: MemorySink
    store: MemoryStore
    runner: SessionRunner
    outlet: FakeOutlet
    record: StringIO
    closed: list[SessionRunner]

    @property
    def session(self) -> Session:
        return self.runner.session

    async def advance(self, ms: int) -> None:
        self.clock.advance(ms)
        await self.runner.settled()

    async def deliver(self, msg: Msg) -> None:
        self.runner.deliver(msg)
        await self.runner.settled()

    def recorded(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.record.getvalue().splitlines()]


def new_session(
    clock: Clock, session_id: str = "s1", opts: dict[str, Any] | None = None, *, table: Table = ENGINE
) -> Session:
    options = parse_options(opts if opts is not None else {"networks": ["eip155:1"]})
    model = initial_model(TEST_PROJECT, TEST_ORIGIN, options, Env(), [])
    return Session(session_id, model, clock.now_ms(), table)


@contextlib.asynccontextmanager
async def runner_rig(
    session: Session | None = None, *, idle_evict_ms: int = 60_000, table: Table = ENGINE
) -> AsyncIterator[RunnerRig]:
    """A RunnerRig whose welcome has been sent; stops the runner at the end."""
    clock = FakeClock()
    closed: list[SessionRunner] = []
    analytics = MemorySink()
    store = MemoryStore()
    deps = RunnerDeps(clock=clock, services=default_services(), analytics=analytics,
                      store=store, idle_evict_ms=idle_evict_ms, on_closed=closed.append)
    session = session or new_session(clock, table=table)
    record = StringIO()
    session.recorder = Recorder(record)
    runner = SessionRunner(session, deps)
    runner.start()
    outlet = FakeOutlet()
    await runner.attach(outlet, lambda generation: f"token{generation}", resumed=False, last=None)
    await runner.settled()
    try:
        yield RunnerRig(clock, deps.services, analytics, store, runner, outlet, record, closed)
    finally:
        await runner.stop()
