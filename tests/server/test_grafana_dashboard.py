"""The Grafana dashboard (config/grafana-dashboard.json, issue 29) asks only for what `/metrics`
exports.

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

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "config" / "grafana-dashboard.json"

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
