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


def test_rule_each_live_worker_is_labelled_by_its_id_with_its_pid_beside(tmp_path: Path) -> None:
    """Issue 46: one id per worker everywhere (its audit signed sets, /healthz, these labels);
    `modalcore_worker_info` pairs it with the pid of its log lines; each worker's own intents
    and unsaved sessions are series of their own, beside the totals."""
    mine = Metrics(worker="00aa11bb22cc33dd")
    mine.intents = 3
    mine.unsaved = lambda: (1, 0)
    shared = SharedMetrics(tmp_path, mine, lambda: 2)
    other = Metrics(worker="ffee")
    other.intents = 9
    (tmp_path / "1.json").write_text(json.dumps({**other.snapshot(4), "pid": 1}))  # pid 1 lives
    types, samples = parse(shared.render())
    assert samples[("modalcore_worker_info", (("worker", "00aa11bb22cc33dd"), ("pid", str(shared.pid))))] == 1
    assert samples[("modalcore_worker_info", (("worker", "ffee"), ("pid", "1")))] == 1
    assert samples[("modalcore_worker_sessions", (("worker", "00aa11bb22cc33dd"),))] == 2
    assert samples[("modalcore_worker_sessions", (("worker", "ffee"),))] == 4
    assert samples[("modalcore_worker_intents_total", (("worker", "ffee"),))] == 9
    assert samples[("modalcore_worker_sessions_unsaved", (("worker", "00aa11bb22cc33dd"),))] == 1
    assert samples[("modalcore_intents_total", ())] == 12 and samples[("modalcore_sessions", ())] == 6
    assert types["modalcore_worker_intents_total"] == "counter"
    assert shared.sessions_by_worker() == {"00aa11bb22cc33dd": 2, "ffee": 4}


def test_rule_a_label_from_another_workers_file_is_only_a_hex_id(tmp_path: Path) -> None:
    """A worker file is read back into label values: anything but a short hex id is not
    trusted as one (the pid names that worker instead)."""
    hostile = Metrics(worker='x"} 1\nmodalcore_sessions 99')
    (tmp_path / "1.json").write_text(json.dumps({**hostile.snapshot(0), "pid": 1}))
    _, samples = parse(SharedMetrics(tmp_path, Metrics(worker="ab"), lambda: 0).render())
    assert ("modalcore_worker_sessions", (("worker", "1"),)) in samples
    assert samples[("modalcore_sessions", ())] == 0
