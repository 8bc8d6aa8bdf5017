"""`/metrics` in the Prometheus text format (version 0.0.4), counted at the socket edge.

What is counted where:
- intents in, frames and bytes out: `MeteredOutlet`, the wrapper the websocket endpoint hands to
  the session runner instead of the bare socket;
- intent latency (a client intent read off the socket → the update that applied it has sent its
  frames): the endpoint stamps each intent as it is read, `MetricsObserver` (a session observer,
  called after the frames went out) closes it;
- store operations: `CountingStore` around the session store;
- sessions: the hub's live runners, read at scrape time;
- sponsoring refused because a day's budget was reached, by budget (issue 38): read at scrape
  time from the sponsoring ledger, which every worker of a host shares (`sponsor_lines`).
"""

from __future__ import annotations

import bisect
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from ..aa.ledger import SponsorLedger
from ..aa.policy import SCOPES
from ..ports.observe import Step
from ..runtime.runner_inputs import Outlet
from ..wire.frames import Intent
from .operator import refuse_operator

MAX_FAILURE_KEYS = 500  # distinct (flow, cause, wallet) series a worker keeps
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Seconds; the top bucket is +Inf.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                   5.0, 10.0)
# Intents stamped but never applied (their socket was replaced first) are forgotten past this.
MAX_PENDING = 10_000


class Histogram:
    def __init__(self, buckets: Sequence[float]) -> None:
        self.buckets = tuple(buckets)
        self.counts = [0] * (len(self.buckets) + 1)
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += 1
        self.sum += value
        self.count += 1


@dataclass(frozen=True)
class WorkerRow:
    """One live worker's own figures, for the per-worker series (`modalcore_worker_*`)."""

    pid: int
    sessions: int
    intents: int
    unsaved: int


class Metrics:
    """The engine process's counters (one per app; nothing module-global)."""

    def __init__(self, worker: str = "") -> None:
        # the id this worker goes by everywhere (the audit's signed sets, the store's lease,
        # /healthz, the `worker` label): server/app.py gives it
        self.worker = worker
        self.intents = 0
        self.frames_out = 0
        self.bytes_out = 0
        self.store_ops: dict[str, int] = {}
        self.store_errors = 0
        self.intent_seconds = Histogram(LATENCY_BUCKETS)
        self.relay_connections = 0  # WalletConnect relay sockets this worker holds (none yet)
        # sessions whose newest state is not saved (the store failing, issue 27), and how many
        # such states were dropped past the bounds: set by the app from its runners' saves
        self.unsaved: Callable[[], tuple[int, int]] = lambda: (0, 0)
        self._added_unsaved = (0, 0)  # other workers' (unsaved, dropped), summed in by `add`
        # unexpected errors by (kind, route): set by the app from its error book (/operator/errors)
        self.errors: Callable[[], Mapping[tuple[str, str], int]] = dict
        self._added_errors: dict[tuple[str, str], int] = {}
        self._pending: dict[int, tuple[Intent, float]] = {}
        # the session doctor's diagnoses (issue 44) by (flow, cause, wallet), at most MAX_FAILURE_KEYS
        self.failures: dict[tuple[str, str, str], int] = {}
        self._added_failures: dict[tuple[str, str, str], int] = {}  # other workers', summed in by `add`

    def failed(self, flow: str, cause: str, wallet: str) -> None:
        key = (flow, cause, wallet)
        if key not in self.failures and len(self.failures) >= MAX_FAILURE_KEYS:
            key = (flow, cause, "other")  # a page announcing ever new wallets: one bucket
        self.failures[key] = self.failures.get(key, 0) + 1

    def intent_read(self, intent: Intent) -> None:
        self.intents += 1
        if len(self._pending) >= MAX_PENDING:
            self._pending.pop(next(iter(self._pending)))
        self._pending[id(intent)] = (intent, time.perf_counter())

    def intent_applied(self, intent: Intent) -> None:
        stamped = self._pending.pop(id(intent), None)
        if stamped is not None and stamped[0] is intent:
            self.intent_seconds.observe(time.perf_counter() - stamped[1])

    def sent(self, size: int) -> None:
        self.frames_out += 1
        self.bytes_out += size

    def store_op(self, op: str) -> None:
        self.store_ops[op] = self.store_ops.get(op, 0) + 1

    def snapshot(self, sessions: int) -> dict[str, object]:
        """What this worker has counted, as JSON, for the other workers' scrapes
        (server/metrics_share.py); `add` sums one back in."""
        h = self.intent_seconds
        return {"worker": self.worker, "pid": os.getpid(),
                "sessions": sessions, "relay_connections": self.relay_connections,
                "intents": self.intents, "frames_out": self.frames_out,
                "bytes_out": self.bytes_out, "store_ops": dict(self.store_ops),
                "store_errors": self.store_errors, "intent_counts": list(h.counts),
                "intent_sum": h.sum, "intent_count": h.count,
                "unsaved": self._unsaved_now()[0], "unsaved_dropped": self._unsaved_now()[1],
                "errors": [[kind, route, n] for (kind, route), n in sorted(self.errors().items())],
                "failures": [[f, c, w, n] for (f, c, w), n in sorted(self.failures.items())]}

    def row(self, sessions: int) -> WorkerRow:
        """This worker's own figures (nothing summed in from others)."""
        return WorkerRow(os.getpid(), sessions, self.intents, self.unsaved()[0])

    def _unsaved_now(self) -> tuple[int, int]:
        own_unsaved, own_dropped = self.unsaved()
        return own_unsaved + self._added_unsaved[0], own_dropped + self._added_unsaved[1]

    def add(self, snapshot: Mapping[str, object], *, live: bool) -> None:
        """Sum another worker's counters in (gauges only from a `live` worker: a replaced
        worker's sessions are gone, what it counted stays counted). A malformed snapshot
        raises ValueError/TypeError/KeyError before changing anything."""
        counts = [_int(n) for n in _items(snapshot["intent_counts"])]
        ops = snapshot["store_ops"]
        if len(counts) != len(self.intent_seconds.counts) or not isinstance(ops, Mapping):
            raise ValueError("not a metrics snapshot of this version")
        added = {str(op): _int(n) for op, n in ops.items()}
        scalars = {name: _int(snapshot[name]) for name in
                   ("intents", "frames_out", "bytes_out", "store_errors", "intent_count",
                    "relay_connections")}
        total = snapshot["intent_sum"]
        if not isinstance(total, (int, float)):
            raise TypeError("intent_sum is not a number")
        unsaved, dropped = _int(snapshot.get("unsaved", 0)), _int(snapshot.get("unsaved_dropped", 0))
        errors = [(_label(k), _label(r), _int(n)) for k, r, n in
                  (_items(e) for e in _items(snapshot.get("errors", [])))]
        failures = [(_label(f), _label(c), _label(w), _int(n)) for f, c, w, n in
                    (_items(e) for e in _items(snapshot.get("failures", [])))]
        self.intents += scalars["intents"]
        self.frames_out += scalars["frames_out"]
        self.bytes_out += scalars["bytes_out"]
        self.store_errors += scalars["store_errors"]
        for op, n in added.items():
            self.store_ops[op] = self.store_ops.get(op, 0) + n
        h = self.intent_seconds
        h.counts = [a + b for a, b in zip(h.counts, counts, strict=True)]
        h.sum += total
        h.count += scalars["intent_count"]
        for kind, route, n in errors:  # counters: a gone worker's stay counted
            self._added_errors[(kind, route)] = self._added_errors.get((kind, route), 0) + n
        for flow, cause, wallet, n in failures:  # counters: a gone worker's stay counted
            key = (flow, cause, wallet)
            self._added_failures[key] = self._added_failures.get(key, 0) + n
        # dropped states stay counted; a replaced worker's unsaved sessions are not held any more
        self._added_unsaved = (self._added_unsaved[0] + (unsaved if live else 0), self._added_unsaved[1] + dropped)
        if live:
            self.relay_connections += scalars["relay_connections"]

    def render(self, sessions: int, *, per_worker: Mapping[str, WorkerRow] | None = None) -> str:
        out: list[str] = []

        def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
            out.append(f"# HELP {name} {help_text}")
            out.append(f"# TYPE {name} {kind}")
            out.extend(f"{sample} {_number(value)}" for sample, value in samples)

        metric("modalcore_sessions", "gauge", "Live sessions (in all workers of `serve --workers N`).",
               [("modalcore_sessions", sessions)])
        metric("modalcore_intents_total", "counter", "Client intents read off the sockets.",
               [("modalcore_intents_total", self.intents)])
        h = self.intent_seconds
        cumulative = 0
        buckets: list[tuple[str, float]] = []
        for bound, count in zip((*h.buckets, float("inf")), h.counts, strict=True):
            cumulative += count
            buckets.append((f'modalcore_intent_seconds_bucket{{le="{_number(bound)}"}}',
                            cumulative))
        metric("modalcore_intent_seconds", "histogram",
               "Intent read off the socket to its update's frames sent.",
               [*buckets, ("modalcore_intent_seconds_sum", h.sum),
                ("modalcore_intent_seconds_count", h.count)])
        metric("modalcore_frames_out_total", "counter", "Frames sent to clients.",
               [("modalcore_frames_out_total", self.frames_out)])
        metric("modalcore_bytes_out_total", "counter", "Bytes of frames sent to clients.",
               [("modalcore_bytes_out_total", self.bytes_out)])
        metric("modalcore_store_operations_total", "counter", "Session store calls by operation.",
               [(f'modalcore_store_operations_total{{op="{op}"}}', n)
                for op, n in sorted(self.store_ops.items())])
        metric("modalcore_store_errors_total", "counter", "Session store calls that failed.",
               [("modalcore_store_errors_total", self.store_errors)])
        unsaved, dropped = self._unsaved_now()
        metric("modalcore_sessions_unsaved", "gauge",
               "Sessions whose newest state is not saved yet (the store failing): retried.",
               [("modalcore_sessions_unsaved", unsaved)])
        metric("modalcore_unsaved_dropped_total", "counter",
               "Unsaved session states dropped past the bounds while the store failed.",
               [("modalcore_unsaved_dropped_total", dropped)])
        metric("modalcore_relay_connections", "gauge", "WalletConnect relay connections held.",
               [("modalcore_relay_connections", self.relay_connections)])
        errors = dict(self._added_errors)
        for key, n in self.errors().items():
            errors[key] = errors.get(key, 0) + n
        metric("modalcore_errors_total", "counter",
               "Unexpected errors while a session processed an input, by cause and route.",
               [(f'modalcore_errors_total{{kind="{_label(kind)}",route="{_label(route)}"}}', n)
                for (kind, route), n in sorted(errors.items())])
        failed = dict(self._added_failures)
        for three, n in self.failures.items():
            failed[three] = failed.get(three, 0) + n
        metric("modalcore_session_failures_total", "counter",
               "Failed or abandoned connects, sign-ins, sends and swaps, by flow, cause and wallet.",
               [(f'modalcore_session_failures_total{{flow="{_label(f)}",cause="{_label(c)}",'
                 f'wallet="{_label(w)}"}}', n) for (f, c, w), n in sorted(failed.items())])
        rows = sorted((per_worker or {}).items())
        metric("modalcore_worker_info", "gauge",
               "Each live worker: its id (audit signed sets, /healthz) and its pid (log lines).",
               [(f'modalcore_worker_info{{worker="{w}",pid="{row.pid}"}}', 1) for w, row in rows])
        metric("modalcore_worker_sessions", "gauge", "Live sessions in each worker.",
               [(f'modalcore_worker_sessions{{worker="{w}"}}', row.sessions) for w, row in rows])
        metric("modalcore_worker_intents_total", "counter",
               "Client intents each live worker read off its sockets.",
               [(f'modalcore_worker_intents_total{{worker="{w}"}}', row.intents) for w, row in rows])
        metric("modalcore_worker_sessions_unsaved", "gauge",
               "Sessions each worker holds whose newest state is not saved yet.",
               [(f'modalcore_worker_sessions_unsaved{{worker="{w}"}}', row.unsaved) for w, row in rows])
        return "\n".join(out) + "\n"


def _items(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError("expected a list")
    return value


def _label(value: object) -> str:
    """A label value as the engine writes them (type and class names): nothing else passes."""
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return re.sub(r"[^A-Za-z0-9_.]", "_", value)[:100]


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("expected an integer")
    return value


def _number(value: float) -> str:
    if value == float("inf"):
        return "+Inf"
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


class MeteredOutlet:
    """The socket as the runner sees it: sends are counted, everything else passes through."""

    def __init__(self, outlet: Outlet, metrics: Metrics) -> None:
        self._outlet = outlet
        self._metrics = metrics

    async def send_bytes(self, data: bytes) -> None:
        await self._outlet.send_bytes(data)
        self._metrics.sent(len(data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        await self._outlet.close(code, reason)


class MetricsObserver:
    """Closes an intent's latency once the runner has applied it and sent what it produced."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    async def observe(self, step: Step) -> None:
        if isinstance(step.cause, Intent):
            self.metrics.intent_applied(step.cause)
        found = step.after.doctor.last
        if found is not None and step.after.doctor.count != step.before.doctor.count:
            self.metrics.failed(found.flow, found.cause.value, found.wallet)


def sponsor_lines(ledger: SponsorLedger | None) -> str:
    """`modalcore_sponsor_caps_reached_total{cap}`: operations a day's sponsoring budget refused
    (the account's, the client address's, the project's, the engine's); "" without a ledger."""
    if ledger is None:
        return ""
    refused = ledger.cap_refusals()
    name = "modalcore_sponsor_caps_reached_total"
    lines = [f"# HELP {name} Sponsored operations refused because a day's budget was reached, by budget.",
             f"# TYPE {name} counter"]
    lines.extend(f'{name}{{cap="{scope}"}} {refused.get(scope, 0)}' for scope in SCOPES)
    return "\n".join(lines) + "\n"


def database_lines(durable: object) -> str:
    """`modalcore_database_statements_total`: the statements this worker sent to PostgreSQL
    (`[database] url`; a round trip each); "" for the SQLite files, which make none."""
    statements = getattr(durable, "statements", None)
    if not isinstance(statements, int) or getattr(durable, "kind", "") != "postgres":
        return ""
    name = "modalcore_database_statements_total"
    return (f"# HELP {name} Statements this worker sent to PostgreSQL (a round trip each).\n"
            f"# TYPE {name} counter\n{name} {statements}\n")


async def metrics_endpoint(request: Request) -> Response:
    """Behind the operator token, as the other operator routes (issue 27): the figures tell
    anyone how busy the engine is and how its store fares."""
    refused = refuse_operator(request)
    if refused is not None:
        return refused
    embedded = getattr(request.app.state, "embedded", None)
    extra = (sponsor_lines(embedded.sponsored if embedded is not None else None)
             + database_lines(getattr(request.app.state, "durable", None)))
    shared = getattr(request.app.state, "shared_metrics", None)
    if shared is not None:  # serve --workers N: every worker's numbers, summed
        return Response(shared.render() + extra, media_type=CONTENT_TYPE)
    metrics: Metrics = request.app.state.metrics
    sessions = len(request.app.state.hub)
    return Response(metrics.render(sessions, per_worker={metrics.worker: metrics.row(sessions)})
                    + extra, media_type=CONTENT_TYPE)
