"""One hostile socket against a running engine, and one honest one (issue 11, fuzz).

`fuzz_socket` opens a socket, sends a first frame (a join, or garbage), then a burst of fuzz
frames and a probe intent, and reads until the probe is answered or the server closes. It checks
the protocol's promises for every frame (`fuzz_frames.expected_reply`) and that every server
frame is typed. `HonestSession` joins normally and later checks that its tree is unchanged and
its intents still work.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from modalcore.wire.codec import decode, encode
from modalcore.wire.diff import apply
from modalcore_dev.bench.fuzz_frames import (
    ACK_STATUSES,
    ALLOWED_CLOSE_CODES,
    ERROR_CODES,
    SERVER_FRAME_TYPES,
    Expect,
    MUTATIONS,
    FrameFuzzer,
    expected_reply,
    first_frame,
)

PROBE_IID = "probe"
PROBE_NODE = "fuzz/probe"  # no such node: the probe's ack changes nothing
SYNC_EVERY = 10  # fuzz frames between probes (the fuzzer sees the replies before going on)
READ_TIMEOUT_S = 10.0


@dataclass
class SocketReport:
    """What one socket saw: frames sent, replies by kind, close code, broken promises."""

    sent: int = 0
    replies: Counter[str] = field(default_factory=Counter)
    close_code: int | None = None
    violations: list[str] = field(default_factory=list)
    sent_kinds: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)  # close code → sockets

    def merge(self, other: SocketReport) -> None:
        self.sent += other.sent
        self.replies.update(other.replies)
        self.sent_kinds.update(other.sent_kinds)
        self.closes.update(other.closes)
        self.violations.extend(other.violations)


def reply_kind(frame: dict[str, Any]) -> str:
    kind = str(frame.get("t"))
    if kind == "error" or kind == "goodbye":
        return f"{kind}:{frame.get('code')}"
    if kind == "intent_ack":
        return f"intent_ack:{frame.get('status')}"
    return kind


def typed_problem(frame: Any) -> str | None:
    """Why a server frame breaks PROTOCOL.md, or None."""
    if not isinstance(frame, dict) or frame.get("t") not in SERVER_FRAME_TYPES:
        return f"untyped server frame {str(frame)[:120]}"
    if frame["t"] == "error" and frame.get("code") not in ERROR_CODES:
        return f"unknown error code {frame.get('code')!r}"
    if frame["t"] == "intent_ack" and frame.get("status") not in ACK_STATUSES:
        return f"unknown intent_ack status {frame.get('status')!r}"
    return None


async def _recv(ws: ClientConnection, report: SocketReport, fuzzer: FrameFuzzer | None) -> dict[str, Any]:
    data = await asyncio.wait_for(ws.recv(), READ_TIMEOUT_S)
    if not isinstance(data, bytes):
        report.violations.append("the server sent a text frame")
        return {}
    frame = decode(data)
    problem = typed_problem(frame)
    if problem:
        report.violations.append(problem)
        return {}
    if frame["t"] != "ack":
        report.replies[reply_kind(frame)] += 1
    if fuzzer is not None:
        fuzzer.observe(frame)
    return frame  # type: ignore[no-any-return]


async def fuzz_socket(
    url: str, origin: str, rng: random.Random, count: int, *, first: str = "join_valid",
    kinds: Sequence[str] = MUTATIONS, plan: Sequence[str] | None = None, project: str = "test",
) -> SocketReport:
    """Open a socket, send `first` then fuzz frames and a probe; check every reply. The frames
    are `count` of kinds drawn from `kinds`, or exactly the kinds in `plan`, in order."""
    report = SocketReport()
    fuzzer = FrameFuzzer(rng)
    try:
        async with connect(url, additional_headers={"Origin": origin}, max_size=2**24,
                           open_timeout=10, close_timeout=2) as ws:
            frames = fuzzer.planned(plan) if plan is not None else fuzzer.frames(count, kinds)
            await _run(ws, report, fuzzer, rng, frames, first, project)
            report.close_code = ws.close_code
    except ConnectionClosed as closed:
        report.close_code = closed.rcvd.code if closed.rcvd else 1006  # no close frame: abnormal
    except TimeoutError:
        report.violations.append("no answer from the server in time")
    report.closes[str(report.close_code)] += 1
    if report.close_code is not None and report.close_code not in ALLOWED_CLOSE_CODES:
        report.violations.append(f"close code {report.close_code}")
    return report


async def _run(
    ws: ClientConnection, report: SocketReport, fuzzer: FrameFuzzer, rng: random.Random,
    frames: Iterator[tuple[str, bytes | str]], first: str, project: str,
) -> None:
    opening = first_frame(rng, first, project)
    await ws.send(opening)
    report.sent += 1
    report.sent_kinds[first] += 1
    while True:  # the welcome, or a refusal then a close
        frame = await _recv(ws, report, fuzzer)
        if frame.get("t") == "joined":
            break
        if frame.get("t") in ("error", "goodbye"):  # a refused handshake: the close follows
            try:
                await asyncio.wait_for(ws.recv(), READ_TIMEOUT_S)
            except ConnectionClosed:
                raise
            report.violations.append(f"a frame after {reply_kind(frame)} on a refused socket")
            return
    chunk: list[tuple[str, bytes | str]] = []
    probes = 0
    for item in frames:
        chunk.append(item)
        if len(chunk) >= SYNC_EVERY:
            probes += 1
            if not await _exchange(ws, report, fuzzer, chunk, f"{PROBE_IID}{probes}"):
                return
            chunk = []
    if chunk and not await _exchange(ws, report, fuzzer, chunk, f"{PROBE_IID}{probes + 1}"):
        return
    await ws.close()


async def _exchange(
    ws: ClientConnection, report: SocketReport, fuzzer: FrameFuzzer,
    chunk: list[tuple[str, bytes | str]], probe: str,
) -> bool:
    """Send a chunk of fuzz frames and a probe intent (on a node that does not exist, so it
    changes nothing); read up to the probe's ack; check the chunk's replies. False when the
    server ended the session."""
    expects: list[Expect] = []
    for kind, data in chunk:
        expects.append(expected_reply(data))
        report.sent_kinds[kind] += 1
        await ws.send(data)
        report.sent += 1
    fuzzer.seq += 1
    await ws.send(encode({"t": "intent", "s": fuzzer.seq, "a": fuzzer.last, "iid": probe,
                          "node": PROBE_NODE, "act": "press", "args": {}}))
    report.sent += 1
    acked: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    while True:
        frame = await _recv(ws, report, fuzzer)
        if frame.get("t") == "intent_ack":
            if frame["iid"] == probe:
                break
            acked[frame["iid"]] += 1
        elif frame.get("t") == "error":
            errors[frame["code"]] += 1
        elif frame.get("t") == "goodbye":
            return False  # the server ended the session (and closes): the close code is checked
    want_errors = Counter(e.code for e in expects if e.kind == "error")
    may_refuse = Counter(e.code for e in expects if e.kind == "may_refuse")
    refused = Counter({code: n for code, n in errors.items() if code in may_refuse})
    if errors - refused != want_errors or refused - may_refuse:
        report.violations.append(f"error frames {dict(errors)} for {dict(want_errors)}"
                                 f" (and at most {dict(may_refuse)})")
    want_acks = Counter(e.iid for e in expects if e.kind == "ack")
    if acked != want_acks:
        missing = want_acks - acked
        extra = acked - want_acks
        report.violations.append(f"intent_ack mismatch: missing {dict(missing)}, extra {dict(extra)}")
    return True


class HonestSession:
    """A well-behaved visitor: joins, opens the modal, keeps its tree from the server's snapshots
    and patches (as the renderer does), and later checks that nothing leaked into it."""

    def __init__(self, url: str, origin: str, project: str = "test") -> None:
        self.url = url
        self.origin = origin
        self.project = project
        self.seq = 0
        self.last = 0
        self.tree: Any = None  # the baseline, after the first open
        self.current: Any = None  # the tree as the server's frames made it
        self.version = 0
        self.problems: list[str] = []
        self._stack: contextlib.AsyncExitStack | None = None
        self.ws: ClientConnection | None = None

    async def _send(self, frame: dict[str, Any]) -> None:
        assert self.ws is not None
        self.seq += 1
        await self.ws.send(encode({**frame, "s": self.seq, "a": self.last}))

    def _track(self, frame: dict[str, Any]) -> None:
        self.last = max(self.last, int(frame.get("s", 0)))
        if frame.get("t") == "snapshot":
            self.current, self.version = frame["tree"], frame["v"]
        elif frame.get("t") == "patch":
            if frame.get("base") != self.version:
                self.problems.append(f"a patch on version {frame.get('base')}, the tree is {self.version}")
                return
            self.current, self.version = apply(self.current, frame["ops"]), frame["v"]

    async def _recv(self, timeout: float) -> dict[str, Any]:
        assert self.ws is not None
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        frame: dict[str, Any] = decode(data if isinstance(data, bytes) else b"\xc1")
        self._track(frame)
        return frame

    async def _until(self, predicate: Any) -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        while True:
            got.append(await self._recv(READ_TIMEOUT_S))
            if predicate(got[-1]):
                return got

    async def _quiet(self, seconds: float) -> None:
        """Read until nothing arrives for `seconds` (the wallet directory loads after a join)."""
        with contextlib.suppress(TimeoutError):
            while True:
                await self._recv(seconds)

    async def start(self) -> None:
        self._stack = contextlib.AsyncExitStack()
        self.ws = await self._stack.enter_async_context(
            connect(self.url, additional_headers={"Origin": self.origin}, max_size=2**24))
        await self._send({"t": "join", "project": self.project,
                          "env": {"platform": "linux", "timezone": "UTC", "width": 1280},
                          "opts": {"networks": ["eip155:1"], "metadata": {"name": "Honest dApp"}},
                          "wallets": []})
        await self._until(lambda f: f.get("t") == "joined")
        self.tree = await self.open_and_settle()

    async def open_and_settle(self) -> Any:
        """Press host/open (ok), let the session settle, return its tree."""
        await self._send({"t": "intent", "iid": f"h{self.seq}", "node": "host", "act": "open", "args": {}})
        frames = await self._until(lambda f: f.get("t") == "intent_ack")
        if frames[-1].get("status") != "ok":
            raise AssertionError(f"honest open answered {frames[-1]}")
        await self._quiet(0.5)
        return copy.deepcopy(self.current)

    async def check(self) -> list[str]:
        """Problems seen by the honest session after the fuzzing (none expected)."""
        problems: list[str] = []
        try:
            tree = await self.open_and_settle()
            for _ in range(2):  # a slow machine may still be loading what the baseline held
                if tree == self.tree:
                    break
                tree = await self.open_and_settle()
            if tree != self.tree:
                problems.append("the honest session's tree changed")
            await self._send({"t": "intent", "iid": f"h{self.seq}", "node": "host", "act": "close", "args": {}})
            frames = await self._until(lambda f: f.get("t") in ("patch", "snapshot"))
            acks = [f for f in frames if f.get("t") == "intent_ack"]
            if [a.get("status") for a in acks] != ["ok"]:
                problems.append(f"the honest close was answered {acks}")
            if self.current["p"].get("open") is not False:  # the root modal node is closed
                problems.append("the honest close did not close the modal")
        except (ConnectionClosed, TimeoutError, AssertionError) as error:
            problems.append(f"the honest session broke: {error!r}")
        return problems + self.problems

    async def stop(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
