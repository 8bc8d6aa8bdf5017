"""Run every benchmark section and print the figures (`make bench`).

Each section runs whatever the others did: one that cannot run here (a program it needs is not
installed) says why in one line; one that fails says how in one line, and the command then exits
with 1 once every section has run. `--only NAME ...` runs some sections; `--smoke` runs each at
its smallest sizes (what tests/bench does, without the shared chains)."""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Sequence

from modalcore_dev.bench.parts import LoadSizes, MissingPart, Parts, SMOKE_LOAD
from modalcore_dev.bench.sections import SECTIONS


def run_section(name: str, parts: Parts) -> bool:
    """Print one section's lines; False when it failed."""
    began = time.monotonic()
    try:
        for text in SECTIONS[name](parts):
            print(text, flush=True)
    except MissingPart as missing:
        print(f"[{name}] not run: {missing}", flush=True)
        return True
    except Exception as error:  # noqa: BLE001 - one section's failure must not stop the others
        frames = traceback.extract_tb(error.__traceback__)
        ours = [frame for frame in frames if "/modalcore" in frame.filename]  # the bench's own line, not a library's
        where = (ours or frames)[-1]
        first = (str(error).splitlines() or [""])[0]
        print(f"[{name}] FAILED: {type(error).__name__}: {first} ({where.filename}:{where.lineno})", flush=True)
        return False
    print(f"[{name}] done in {time.monotonic() - began:.0f} s", flush=True)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m modalcore_dev.bench")
    parser.add_argument("--only", nargs="+", choices=list(SECTIONS), help="sections to run (default: all)")
    parser.add_argument("--smoke", action="store_true", help="the smallest sizes (a check that each runs)")
    defaults = LoadSizes()
    parser.add_argument("--load-idle", type=int, default=defaults.idle)
    parser.add_argument("--load-active", type=int, default=defaults.active)
    parser.add_argument("--load-rate", type=float, default=defaults.rate)
    parser.add_argument("--load-seconds", type=float, default=defaults.seconds)
    args = parser.parse_args(argv)
    load = SMOKE_LOAD if args.smoke else LoadSizes(args.load_idle, args.load_active, args.load_rate, args.load_seconds)
    parts = Parts(smoke=args.smoke, load=load)
    failed = [name for name in args.only or list(SECTIONS) if not run_section(name, parts)]
    if failed:
        print(f"bench: {len(failed)} section(s) failed: {', '.join(failed)}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
