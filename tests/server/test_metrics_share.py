"""The sum `/metrics` answers with under `serve --workers N` (server/metrics_share.py): a worker
that is gone keeps its counters in the totals (a counter never falls back) but not its gauges;
an unreadable file is skipped, not a failed scrape."""

from __future__ import annotations

import json
from pathlib import Path

from modalcore.server.metrics import Metrics
from modalcore.server.metrics_share import SharedMetrics

from .test_metrics import parse

GONE_PID = 4_000_000  # past pid_max: no process has it


def test_rule_counters_of_every_worker_ever_and_gauges_of_live_ones(tmp_path: Path) -> None:
    mine = Metrics()
    mine.intents = 3
    mine.store_op("save")
    mine.intent_seconds.observe(0.002)
    gone = Metrics()
    gone.intents = 4
    gone.store_op("save")
    gone.store_op("load")
    (tmp_path / f"{GONE_PID}.json").write_text(json.dumps(gone.snapshot(5)))
    (tmp_path / "7.json").write_text("{not json")
    shared = SharedMetrics(tmp_path, mine, lambda: 2)
    types, samples = parse(shared.render())
    assert samples[("modalcore_intents_total", ())] == 7
    assert samples[("modalcore_store_operations_total", (("op", "save"),))] == 2
    assert samples[("modalcore_store_operations_total", (("op", "load"),))] == 1
    assert samples[("modalcore_intent_seconds_count", ())] == 1
    assert samples[("modalcore_sessions", ())] == 2  # the gone worker's 5 sessions are gone
    assert types["modalcore_worker_sessions"] == "gauge"
    assert samples[("modalcore_worker_sessions", (("worker", str(shared.pid)),))] == 2
    assert ("modalcore_worker_sessions", (("worker", str(GONE_PID)),)) not in samples
    assert json.loads((tmp_path / f"{shared.pid}.json").read_text())["intents"] == 3


def test_rule_unsaved_sessions_are_a_live_gauge_and_dropped_states_a_counter(tmp_path: Path) -> None:
    """The store-outage figures (sessions whose newest state is not saved, states dropped past
    the bounds) are summed across workers like the others, not answered by one worker alone."""
    mine = Metrics()
    mine.unsaved = lambda: (2, 1)
    gone = Metrics()
    gone.unsaved = lambda: (5, 3)
    (tmp_path / f"{GONE_PID}.json").write_text(json.dumps(gone.snapshot(0)))
    _, samples = parse(SharedMetrics(tmp_path, mine, lambda: 0).render())
    assert samples[("modalcore_sessions_unsaved", ())] == 2  # the gone worker holds nothing now
    assert samples[("modalcore_unsaved_dropped_total", ())] == 4
