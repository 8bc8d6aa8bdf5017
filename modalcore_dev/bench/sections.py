"""The bench's sections in the order `make bench` runs them: name → run(parts) → lines."""

from __future__ import annotations

from collections.abc import Callable

from modalcore_dev.bench import (aa_approve_bench, aa_bench, any_count, audit_bench, directory_bench, embedded_bench,
                                 engine_bench, farcaster_bench, hosts_bench, i18n_bench, inspect_bench, instructions_bench,
                                 latency_bench, load, production_bench, simulation_bench, socket_bench, swap_bench,
                                 walletconnect_bench)
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines

Section = Callable[[Parts], Lines]

SECTIONS: dict[str, Section] = {
    "code": any_count.run,
    "production": production_bench.run,
    "instructions": instructions_bench.run,
    "engine": engine_bench.run,
    "socket": socket_bench.run,
    "latency": latency_bench.run,
    "directory": directory_bench.run,
    "audit": audit_bench.run,
    "inspect": inspect_bench.run,
    "i18n": i18n_bench.run,
    "swap": swap_bench.run,
    "walletconnect": walletconnect_bench.run,
    "embedded": embedded_bench.run,
    "simulation": simulation_bench.run,
    "farcaster": farcaster_bench.run,
    "aa": aa_bench.run,
    "aa-approve": aa_approve_bench.run,
    "load": load.section,
    "hosts": hosts_bench.run,
}

# The sections that need the dev chains (the smoke tests hand them the shared fixtures), and of
# those the ones that also need a bundler.
ON_CHAINS = ("swap", "walletconnect", "embedded", "farcaster")
ON_BUNDLERS = ("aa", "aa-approve", "simulation")
