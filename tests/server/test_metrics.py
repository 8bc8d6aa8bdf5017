"""`/metrics`: Prometheus text format, counted at the socket edge (issue 17).

The scrape is parsed by a small strict parser of the text format (version 0.0.4): every sample
belongs to a declared metric, histogram buckets are cumulative and end at +Inf = _count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import pytest

from modalcore.store.base import NO_BLOBS
from modalcore.store.memory import MemoryStore
from modalcore_testing import RunningServer, make_test_config, start_server

OPERATOR = "metrics-operator-token-of-32-bytes-or-more"
_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"')


def parse(text: str) -> tuple[dict[str, str], dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    """(metric name -> type, (sample name, labels) -> value); raises on anything malformed."""
    types: dict[str, str] = {}
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    assert text.endswith("\n")
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped"), line
            assert name not in types, f"{name} declared twice"
            types[name] = kind
            continue
        match = _SAMPLE.match(line)
        assert match is not None, f"not a sample line: {line!r}"
        name, labels_text, value = match.groups()
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        assert name in types or base in types, f"{name} has no TYPE"
        labels = tuple(_LABEL.findall(labels_text or ""))
        samples[(name, labels)] = float(value)  # float() accepts +Inf
    return types, samples


def scrape(server: RunningServer) -> tuple[dict[str, str], dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    response = httpx.get(server.http_url + "/metrics", headers={"Authorization": f"Bearer {OPERATOR}"}, timeout=5)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return parse(response.text)


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[RunningServer]:
    config = make_test_config(store={"kind": "sqlite", "path": str(tmp_path / "s.db")}, operator_token=OPERATOR)
    with start_server(config) as running:
        yield running


def test_metrics_parse_before_any_session(server: RunningServer) -> None:
    types, samples = scrape(server)
    assert types["modalcore_sessions"] == "gauge"
    assert types["modalcore_intents_total"] == "counter"
    assert types["modalcore_intent_seconds"] == "histogram"
    assert samples[("modalcore_sessions", ())] == 0
    assert samples[("modalcore_intents_total", ())] == 0
    assert samples[("modalcore_relay_connections", ())] == 0
    assert samples[("modalcore_intent_seconds_bucket", (("le", "+Inf"),))] == 0


async def test_metrics_count_what_a_session_did_over_its_socket(server: RunningServer) -> None:
    """Intents in, frames and bytes out, the latency histogram and store writes all move."""
    async with server.client() as client:
        await client.join()
        for act in ("open", "close", "open"):
            await client.intent("host", act)
            await client.recv_until(lambda f: f["t"] in ("patch", "snapshot"))
        await client.quiet(0.2)
        server.wait_for(lambda: server.app.state.metrics.intent_seconds.count == 3)
        _, samples = scrape(server)
    assert samples[("modalcore_sessions", ())] == 1
    assert samples[("modalcore_intents_total", ())] == 3
    assert samples[("modalcore_intent_seconds_count", ())] == 3
    assert samples[("modalcore_intent_seconds_sum", ())] > 0
    buckets = sorted(
        (float(labels[0][1]), value) for (name, labels), value in samples.items()
        if name == "modalcore_intent_seconds_bucket"
    )
    counts = [value for _, value in buckets]
    assert counts == sorted(counts), "buckets are cumulative"
    assert buckets[-1] == (float("inf"), 3)
    assert samples[("modalcore_frames_out_total", ())] >= len(client.frames)
    assert samples[("modalcore_bytes_out_total", ())] > samples[("modalcore_frames_out_total", ())]
    assert samples[("modalcore_store_operations_total", (("op", "save"),))] >= 1
    assert samples[("modalcore_store_errors_total", ())] == 0


class _FailingStore(MemoryStore):
    async def save(self, session_id: str, data: bytes, now_ms: int,
                   blobs: Mapping[str, bytes] = NO_BLOBS) -> None:
        raise ConnectionError("the store is down")


async def test_failed_store_calls_are_counted() -> None:
    config = make_test_config(operator_token=OPERATOR, store={"shutdown_wait_s": 0})  # it never comes back: no wait
    with start_server(config, store=_FailingStore()) as failing:
        async with failing.client() as client:
            await client.join()
            await client.intent("host", "open")
            await client.recv_until(lambda f: f["t"] in ("patch", "snapshot"))
            failing.wait_for(lambda: failing.app.state.metrics.store_errors >= 1)
            _, samples = scrape(failing)
    assert samples[("modalcore_store_errors_total", ())] >= 1
    assert samples[("modalcore_store_operations_total", (("op", "save"),))] >= 1


def test_metrics_are_for_the_operator_only(tmp_path: Path) -> None:
    """Issue 27: no token configured, no /metrics (404); a missing or wrong token is 401."""
    with start_server(make_test_config()) as closed:
        assert httpx.get(closed.http_url + "/metrics", timeout=5).status_code == 404
    with start_server(make_test_config(operator_token=OPERATOR)) as guarded:
        assert httpx.get(guarded.http_url + "/metrics", timeout=5).status_code == 401
        wrong = httpx.get(guarded.http_url + "/metrics", headers={"Authorization": "Bearer no"}, timeout=5)
        assert wrong.status_code == 401
        types, _ = scrape(guarded)
        assert types["modalcore_sessions"] == "gauge"
