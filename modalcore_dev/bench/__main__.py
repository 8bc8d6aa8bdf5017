"""Run every benchmark and print the figures."""

from __future__ import annotations

import sys

from modalcore_dev.bench import (aa_approve_bench, aa_bench, audit_bench, directory_bench, embedded_bench, engine_bench, farcaster_bench, i18n_bench,
                                 inspect_bench, instructions_bench, latency_bench, production_bench, socket_bench,
                                 swap_bench, walletconnect_bench)


def main() -> int:
    sections = [production_bench.run, instructions_bench.run, engine_bench.run, socket_bench.run, latency_bench.run,
                directory_bench.run, audit_bench.run, inspect_bench.run, i18n_bench.run, swap_bench.run, walletconnect_bench.run,
                embedded_bench.run, farcaster_bench.run, aa_bench.run, aa_approve_bench.run]
    for section in sections:
        for text in section():
            print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
