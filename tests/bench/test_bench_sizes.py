"""Issue 40 item 8: the critical path a host page loads before its first paint is at most 10 KiB
gzip, for the script tag (dist/loader.js, as the engine sends it gzip) and for each entry of the
npm package (what it imports statically, React excluded), as `make bench` measures them. A byte
count, never a time."""

from __future__ import annotations

import json

from modalcore_dev.bench import latency_bench
from modalcore_dev.bench.stats import Figure


def test_rule_the_loader_and_each_npm_entry_critical_path_are_at_most_10_kib_gzip() -> None:
    figures = {str(figure.name).strip(): figure for figure in latency_bench.bundle_lines() if isinstance(figure, Figure)}
    loader = next(figure for name, figure in figures.items() if name.startswith("script tag's file"))
    assert 0 < loader.measured[0] <= latency_bench.LOADER_BOUND == 10 * 1024
    assert loader.measured[0] == len((latency_bench.LOADER.parent / "loader.js.gz").read_bytes())
    sizes: dict[str, int] = json.loads(latency_bench.SDK_SIZES.read_text())
    for entry in ("index", "react", "wagmi", "elements", "index+react"):
        assert 0 < sizes[entry] <= latency_bench.LOADER_BOUND, (entry, sizes[entry])
    # the modal itself is fetched later: what the loader saves a host page's first paint
    assert sizes["modal chunk"] > latency_bench.LOADER_BOUND
