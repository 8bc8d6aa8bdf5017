"""The Grafana dashboard (config/grafana-dashboard.json, issue 29) asks only for what `/metrics`
exports; every metric the engine exports is on a panel, and workers have panels of their own
(issue 46). The alert rules (config/prometheus-alerts.yml) name exported metrics too.

The exported names are read from the engine's code (every `modalcore_*` metric or sample name
written in a string under modalcore/), so the check stays true as metrics are added; a query
naming a metric the engine does not export (a typo, a renamed metric) fails.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # (mkdocs' dependency; no type stubs in the lock)

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "config" / "grafana-dashboard.json"
ALERTS = ROOT / "config" / "prometheus-alerts.yml"

_NAME = re.compile(r"modalcore_[a-z0-9_]+")
# PromQL words that are not metric names (functions, aggregations, keywords).
_PROMQL_WORDS = frozenset({
    "sum", "avg", "min", "max", "count", "rate", "irate", "increase", "delta", "by", "without",
    "histogram_quantile", "topk", "bottomk", "clamp_min", "clamp_max", "abs", "ceil", "floor",
    "round", "or", "and", "unless", "on", "ignoring", "group_left", "group_right", "offset",
    "bool", "label_values", "vector", "scalar", "time", "deriv", "avg_over_time",
    "max_over_time", "min_over_time", "sum_over_time", "resets", "changes", "absent",
})
_HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def exported_names() -> set[str]:
    """Metric and sample names the engine's code writes (`metric("name", "kind", ...)` calls and
    `modalcore_...` sample strings)."""
    names: set[str] = set()
    for path in (ROOT / "modalcore").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and len(node.args) >= 2:
                first, second = node.args[0], node.args[1]
                if (isinstance(first, ast.Constant) and isinstance(first.value, str)
                        and isinstance(second, ast.Constant)
                        and second.value in ("histogram", "summary")
                        and _NAME.fullmatch(first.value)):
                    names.update(first.value + suffix for suffix in _HISTOGRAM_SUFFIXES)
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                match = re.fullmatch(r"(modalcore_[a-z0-9_]+)(\{.*)?( .*)?", node.value, re.S)
                if match:
                    names.add(match.group(1))
            if isinstance(node, ast.JoinedStr) and node.values:
                head = node.values[0]
                if isinstance(head, ast.Constant) and isinstance(head.value, str):
                    match = re.match(r"(modalcore_[a-z0-9_]+)(\{|$)", head.value)
                    if match:
                        names.add(match.group(1))
    return names


def queries(dashboard: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, PromQL) for every panel target and every query variable."""
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            yield f"panel {panel['title']!r}", str(target["expr"])
    for variable in dashboard["templating"]["list"]:
        if variable.get("type") == "query":
            query = variable["query"]
            yield f"variable {variable['name']!r}", str(query["query"] if isinstance(query, dict) else query)


def metric_words(promql: str) -> set[str]:
    """The identifiers of a PromQL expression that name series (labels, ranges, strings and
    `$variables` removed)."""
    text = re.sub(r'"[^"]*"', "", promql)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", "", text)
    text = re.sub(r"\$\w+", "", text)
    text = re.sub(r",\s*[a-zA-Z_]\w*\s*\)", ")", text)  # label_values(metric, label)
    words = set(re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", text))
    return {word for word in words if word not in _PROMQL_WORDS and not re.fullmatch(r"e\d*", word)}


def test_the_scan_finds_what_metrics_render_writes() -> None:
    """The names read from the code include every sample the engine's `/metrics` renders."""
    from modalcore.server.metrics import Metrics

    rendered = {line.split("{")[0].split(" ")[0] for line in Metrics().render(0).splitlines()
                if line and not line.startswith("#")}
    assert rendered and rendered <= exported_names()


def test_every_dashboard_query_names_an_exported_metric() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    exported = exported_names()
    seen = 0
    for where, promql in queries(dashboard):
        words = metric_words(promql)
        assert words, f"{where}: {promql!r} names no metric"
        unknown = words - exported
        assert not unknown, f"{where}: {promql!r} names {sorted(unknown)}, not exported by the engine"
        seen += 1
    assert seen >= 10


def test_a_misspelt_metric_is_caught() -> None:
    """The check can fail: a query naming a metric the engine does not export is reported."""
    assert metric_words('sum(rate(modalcore_intent_total{job=~"$job"}[5m]))') - exported_names() == {
        "modalcore_intent_total"}
    assert metric_words(
        'histogram_quantile(0.95, sum by (le) (rate(modalcore_intent_seconds_bucket[$__rate_interval])))'
    ) == {"modalcore_intent_seconds_bucket"}


def _families() -> set[str]:
    """Every metric family `/metrics` renders, per-worker series included."""
    from modalcore.server.metrics import Metrics, WorkerRow

    text = Metrics(worker="ab12").render(0, per_worker={"ab12": WorkerRow(7, 0, 0, 0)})
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}


def _dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return loaded


def test_rule_every_exported_metric_is_on_a_panel() -> None:
    named: set[str] = set()
    for _, promql in queries(_dashboard()):
        named |= metric_words(promql)
    families = _families()
    missing = {f for f in families if not any(n == f or n.startswith(f + "_") for n in named)}
    assert not missing, f"on no panel: {sorted(missing)}"
    assert {"modalcore_sessions_unsaved", "modalcore_unsaved_dropped_total",
            "modalcore_worker_sessions"} <= families


def test_rule_workers_have_panels_of_their_own_filtered_by_the_worker_variable() -> None:
    """A per-worker panel queries the `modalcore_worker_*` series (by worker id), never a total
    already summed over a `serve`'s workers, and filters by the dashboard's `worker` variable."""
    dashboard = _dashboard()
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert "modalcore_worker_sessions" in str(variables["worker"]["query"])
    per_worker = [p for p in dashboard["panels"] if "per worker" in p["title"]]
    assert {p["title"] for p in per_worker} >= {"Live sessions per worker", "Intents / s per worker",
                                                 "Unsaved sessions per worker"}
    for panel in per_worker:
        for target in panel["targets"]:
            words = metric_words(target["expr"])
            assert words and all(w.startswith("modalcore_worker_") for w in words), panel["title"]
            assert 'worker=~"$worker"' in target["expr"] and "{{worker}}" in target["legendFormat"]
    for panel in dashboard["panels"]:  # a panel named "by worker" may not show per-serve totals
        assert "by worker" not in panel["title"], panel["title"]


def test_rule_the_dashboard_declares_only_what_it_uses() -> None:
    """No `__inputs` left from an export (the data source is the `datasource` variable)."""
    dashboard = _dashboard()
    text = DASHBOARD.read_text(encoding="utf-8")
    for declared in dashboard.get("__inputs", []):
        assert "${" + declared["name"] + "}" in text, f"input {declared['name']} is unused"
    assert "DS_PROMETHEUS" not in text


def test_rule_every_alert_rule_names_exported_metrics() -> None:
    rules = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))
    exported = exported_names() | {"up"}  # Prometheus' own series of a scrape
    names = []
    for group in rules["groups"]:
        for rule in group["rules"]:
            names.append(rule["alert"])
            words = metric_words(str(rule["expr"]))
            assert words and words <= exported, f"{rule['alert']}: {sorted(words - exported)}"
            assert rule["annotations"]["summary"]
    assert {"ModalcoreDown", "ModalcoreSavesFailing", "ModalcoreUnsavedStatesDropped",
            "ModalcoreStoreErrors", "ModalcoreIntentLatencyHigh"} <= set(names)
