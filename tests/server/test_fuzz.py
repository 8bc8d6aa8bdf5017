"""Issue 11, fuzz: hypothesis-chosen hostile frames over real sockets to a real uvicorn.

Rules checked (PROTOCOL.md "Limits", "Intents", "Close codes"; BRIEF "Bad input gets a clear
typed error and changes nothing; no traceback in logs"):
- every frame gets the reply the protocol promises: `error malformed|too_large` for a refused
  frame, one `intent_ack` per intent (replayed iids included), a snapshot per resync;
- every server frame is a typed protocol frame; closes use the protocol's codes, never 1011;
- nothing is logged at ERROR or with a traceback (the engine's loggers and uvicorn's);
- an honest session on another socket keeps its tree and its intents keep working;
- the server records every session (`--record-dir`), and each recording replays exactly.

Hypothesis picks, per socket, the first frame, a seed and the list of mutation kinds (so a
failure shrinks to a short list of kinds); `modalcore_dev.bench.fuzz_frames` makes the bytes.
`make fuzz` runs the long campaign (python -m modalcore_dev.bench.fuzz).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modalcore_dev.bench.fuzz_client import HonestSession, SocketReport, fuzz_socket
from modalcore_dev.bench.fuzz_frames import FIRST_MUTATIONS, MUTATIONS, RARE_MUTATIONS, deep_bytes
from modalcore.engine.record import replay
from modalcore_testing import TEST_ORIGIN, RunningServer, recordings, start_server
from modalcore.wire.codec import encode

SOCKETS = 30  # hypothesis examples, one hostile socket each


class Collect(logging.Handler):
    """Keeps every record at ERROR or above, or carrying a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.bad: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info or "Traceback" in record.getMessage():
            self.bad.append(record)


@pytest.fixture
def server_log() -> Iterator[Collect]:
    """Records from the engine (root logger) and from uvicorn (which does not propagate)."""
    handler = Collect()
    loggers = [logging.getLogger(), logging.getLogger("uvicorn"), logging.getLogger("uvicorn.error")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)


@pytest.fixture(scope="module")
def recording_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningServer, Path]]:
    """A server that records every session, as `serve --record-dir` does."""
    folder = tmp_path_factory.mktemp("fuzz-recordings")
    with start_server(record_dir=folder) as server:
        yield server, folder


socket_plans = st.tuples(
    st.sampled_from(FIRST_MUTATIONS + ("join_valid",) * 4),  # mostly joined sockets
    st.integers(0, 2**32 - 1),
    st.lists(st.sampled_from(MUTATIONS + RARE_MUTATIONS), min_size=1, max_size=30),
)


def test_hostile_frames_get_typed_replies_and_leave_an_honest_session_alone(
    recording_server: tuple[RunningServer, Path], server_log: Collect
) -> None:
    server, folder = recording_server
    url = server.ws_url()
    loop = asyncio.new_event_loop()
    honest = HonestSession(url, TEST_ORIGIN)
    total = SocketReport()
    try:
        loop.run_until_complete(honest.start())

        @settings(max_examples=SOCKETS, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow])
        @given(plan=socket_plans)
        def one_socket(plan: tuple[str, int, list[str]]) -> None:
            first, seed, kinds = plan
            logged = len(server_log.bad)
            report = loop.run_until_complete(
                fuzz_socket(url, TEST_ORIGIN, random.Random(seed), 0, first=first, plan=kinds))
            total.merge(report)
            assert report.violations == [], (plan, report.violations)
            assert not server_log.bad[logged:], [r.getMessage() for r in server_log.bad[logged:]]

        one_socket()
        assert loop.run_until_complete(honest.check()) == []
    finally:
        loop.run_until_complete(honest.stop())
        loop.close()
    assert not server_log.bad, [record.getMessage() for record in server_log.bad]
    # the run was not vacuous: refusals, acks and joins all happened
    assert total.replies["error:malformed"] > 0 and total.replies["joined"] > 0
    assert total.replies["intent_ack:ok"] + total.replies["intent_ack:invalid"] > 0
    # every session the fuzz opened replays to the same frames (nothing random got in)
    files = recordings(folder)
    assert len(files) >= total.replies["joined"] > 0
    assert [(path.name, replay(path)) for path in files] == [(path.name, None) for path in files]


async def _deep_and_binary_frames(server: RunningServer) -> list[dict[str, object]]:
    async with server.client() as client:
        await client.join()
        for frame, key, tail in [
            ({"t": "wallet_event", "s": 2, "a": 0, "connector": "x", "event": "announce"},
             "data", deep_bytes(1000)),
            ({"t": "effect_result", "s": 3, "a": 0, "eid": "e1", "ok": True}, "result",
             encode(b"\xff\xfe")),
            ({"t": "intent", "s": 4, "a": 0, "iid": "i1", "node": "host", "act": "open"}, "args",
             b"\x81\xa1k" + deep_bytes(1000)),
        ]:
            body = encode(frame)  # a fixmap: one more key, whose value msgpack-python won't pack
            await client.send_raw(bytes([body[0] + 1]) + body[1:] + encode(key) + tail)
        replies = [await client.recv() for _ in range(3)]
        await client.intent("host", "open")
        replies.append(await client.recv())
        return replies


def test_deep_or_binary_values_are_refused_on_a_recording_server(
    recording_server: tuple[RunningServer, Path], server_log: Collect
) -> None:
    """Found by this fuzz: with recording on, a value nested 1,000 deep or a non-UTF-8 `bin`
    made the recorder raise (a traceback; the frame, even an intent, went unanswered). Now the
    socket edge refuses them (PROTOCOL.md "Limits") and the session goes on."""
    server, _ = recording_server
    replies = asyncio.run(_deep_and_binary_frames(server))
    assert [(r["t"], r.get("code")) for r in replies[:3]] == [("error", "malformed")] * 3
    assert (replies[3]["t"], replies[3].get("status")) == ("intent_ack", "ok")
    assert not server_log.bad, [record.getMessage() for record in server_log.bad]
