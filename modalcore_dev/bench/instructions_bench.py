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


def _instructions(mode: str, rounds: int, sessions: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cachegrind.out"
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                        sys.executable, "-m", "modalcore_dev.bench.instructions_bench", mode, str(rounds), str(sessions)],
                       check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = _SUMMARY.search(out.read_bytes())
        assert found is not None, "cachegrind wrote no summary"
        return int(found.group(1))


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
    # smoke: one session, one and two cycles (still the difference of two runs), and not the
    # session alone (two more runs under valgrind; engine_bench goes through its path)
    sessions, few, many = (1, len(CYCLE), 2 * len(CYCLE)) if parts.smoke else (SESSIONS, FEW, MANY)
    each = per_intent("--presses", few, many, sessions, together=parts.smoke)
    out: Lines = [title,
                  line("SQLite: instructions per intent", f"{each / 1e3:,.0f} k", measured=[each]),
                  line("SQLite: … per open / All Wallets / back / close cycle", f"{each * len(CYCLE) / 1e6:.2f} M",
                       "≤ 1.0 M", [each])]
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
    for text in run(Parts()):
        print(text, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
