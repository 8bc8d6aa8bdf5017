"""Instructions per intent on the production path (issue 30): a figure that depends far less on the
machine and on what else it runs than the CPU µs of `production_bench`.

The production bench's `measure` (hub, runner, observers, metrics, SQLite store, encoder; sessions
interleaved) runs twice under Debian's `valgrind --tool=cachegrind`, with two numbers of presses;
the difference of the two instruction totals over the difference of presses is what one intent
costs, everything else (interpreter start, imports, app start, warming every view) cancelling
out. Every thread counts: the store's writes behind are part of the figure, committed every
WRITE_BEHIND_ROWS saves as on a busy worker (not also after WRITE_BEHIND_MS: under valgrind that
would commit after every save, and how often would depend on the machine). One intent of the
cycle open / All Wallets / back / close is a quarter of a cycle. Other timers of the production
path still fire by wall time, which valgrind stretches: single runs vary by a few per cent
(up to 9 % seen on a loaded machine); compare a change by runs of both sides started together.

Where the instructions go: `python -m modalcore_dev.bench.instructions_bench --callgrind [DIR]`
runs the same two programs under `valgrind --tool=callgrind` and prints, per intent, the
inclusive instructions of the C functions that differ most between them (the interpreter's own
functions, pydantic-core, msgpack, sqlite3, hashlib...); the two callgrind files stay in DIR for
`callgrind_annotate --inclusive=yes --tree=calling`.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from modalcore.store.sqlite import SqliteStore
from modalcore_dev.bench.engine_bench import intent_to_patch
from modalcore_dev.bench.production_bench import CYCLE, measure
from modalcore_dev.bench.parts import Parts, require_program
from modalcore_dev.bench.stats import Lines, line

SESSIONS = 10
BY_ROWS_ONLY_MS = 10**9  # a write-behind wait no run reaches
FEW, MANY = 40, 200  # presses; multiples of SESSIONS × len(CYCLE), so each run ends on whole cycles
_SUMMARY = re.compile(rb"^summary:\s+(\d+)", re.MULTILINE)


def _presses(rounds: int, sessions: int = SESSIONS) -> None:
    """The measured program: `rounds` presses over `sessions` sessions, saved in SQLite."""
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "bench.db", write_behind_ms=BY_ROWS_ONLY_MS)
        asyncio.run(measure(store, sessions=sessions, rounds=rounds))


def _session_presses(rounds: int) -> None:
    """The breakdown: `rounds` presses of the cycle on a session alone (update, view, diff,
    encode; engine_bench's intent → patch), no runner, observers or store."""
    intent_to_patch(rounds)


def _valgrind(tool: str, out: Path, mode: str, rounds: int, sessions: int) -> None:
    """The measured program under `valgrind --tool=TOOL` (cachegrind: the total; callgrind: per
    function), its counts written to `out`."""
    options = (["--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}"] if tool == "cachegrind"
               else ["--tool=callgrind", f"--callgrind-out-file={out}"])
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run(["valgrind", *options,
                    sys.executable, "-m", "modalcore_dev.bench.instructions_bench", mode, str(rounds), str(sessions)],
                   check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _instructions(mode: str, rounds: int, sessions: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cachegrind.out"
        _valgrind("cachegrind", out, mode, rounds, sessions)
        found = _SUMMARY.search(out.read_bytes())
        assert found is not None, "cachegrind wrote no summary"
        return int(found.group(1))


_INCLUSIVE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+\*?\s*(.+?)\s*$")


def _inclusive(out: Path) -> dict[str, int]:
    """Function -> inclusive instructions, as `callgrind_annotate --inclusive=yes` lists them."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", str(out)],
                          check=True, capture_output=True, text=True).stdout
    costs: dict[str, int] = {}
    for row in text.splitlines():
        found = _INCLUSIVE.match(row)
        if found is not None:
            name = found.group(2)
            costs[name] = costs.get(name, 0) + int(found.group(1).replace(",", ""))
    return costs


def where_it_goes(directory: Path, mode: str = "--presses", few: int = FEW, many: int = MANY,
                  sessions: int = SESSIONS, top: int = 60) -> Lines:
    """Per intent, the inclusive instructions of the functions whose counts differ most between
    `many` and `few` presses (both run at once: callgrind counts do not depend on the load)."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {rounds: directory / f"callgrind.{mode.strip('-')}.{rounds}.out" for rounds in (few, many)}
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda rounds: _valgrind("callgrind", files[rounds], mode, rounds, sessions), (many, few)))
    more, fewer = _inclusive(files[many]), _inclusive(files[few])
    rows = sorted(((more.get(name, 0) - fewer.get(name, 0)) / (many - few), name) for name in more)
    return [f"{each / 1e3:10,.1f} k  {name}" for each, name in reversed(rows[-top:])]


def per_intent(mode: str = "--presses", few: int = FEW, many: int = MANY, sessions: int = SESSIONS,
               together: bool = False) -> float:
    """`together`: the two runs at once (the smoke test's, on two cores: half the wait; the full
    bench runs them one after the other, so neither stretches the other's timers)."""
    if together:
        with ThreadPoolExecutor(2) as pool:
            more, fewer = pool.map(lambda rounds: _instructions(mode, rounds, sessions), (many, few))
        return (more - fewer) / (many - few)
    return (_instructions(mode, many, sessions) - _instructions(mode, few, sessions)) / (many - few)


def run(parts: Parts) -> Lines:
    title = "Engine, production path under cachegrind (instructions, any machine):"
    require_program("valgrind", "Debian's valgrind: apt-get install valgrind")
    # smoke: one session, one and 26 cycles, and not the session alone (two more runs under
    # valgrind; engine_bench goes through its path). The 100 presses between the runs cost about
    # 100 M instructions, a few seconds under valgrind beside the minute of start-up (12.4 G); with
    # four and then 20 presses between them, in CI the difference came out negative twice
    # (-249 k, -4,090 k per intent): one run had done a full collection more than the other.
    sessions, few, many = (1, len(CYCLE), 26 * len(CYCLE)) if parts.smoke else (SESSIONS, FEW, MANY)
    each = per_intent("--presses", few, many, sessions, together=parts.smoke)
    out: Lines = [title,
                  line("SQLite: instructions per intent", f"{each / 1e3:,.0f} k", "≤ 1.0 M", [each]),
                  line("SQLite: … per open / All Wallets / back / close cycle", f"{each * len(CYCLE) / 1e6:.2f} M",
                       measured=[each * len(CYCLE)])]
    if not parts.smoke:
        alone = per_intent("--session", few, many, sessions)
        out.append(line("the session alone (update+view+diff+encode), per cycle", f"{alone * len(CYCLE) / 1e6:.2f} M",
                        measured=[alone]))
    return out


def _main(argv: list[str]) -> int:
    if argv[:1] == ["--presses"]:
        _presses(int(argv[1]), int(argv[2]) if len(argv) > 2 else SESSIONS)
        return 0
    if argv[:1] == ["--session"]:
        _session_presses(int(argv[1]))
        return 0
    if argv[:1] == ["--callgrind"]:
        directory = Path(argv[1]) if len(argv) > 1 else Path(tempfile.mkdtemp(prefix="callgrind-"))
        mode = argv[2] if len(argv) > 2 else "--presses"
        print(f"per intent, inclusive ({mode}); callgrind files in {directory}:", flush=True)
        for text in where_it_goes(directory, mode):
            print(text, flush=True)
        return 0
    for text in run(Parts()):
        print(text, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
