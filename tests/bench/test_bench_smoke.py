"""Issue 45: every `make bench` section runs, at the smallest sizes that still go through its path
(one quote, one swap, one sign-in, one press cycle...), so a change that breaks a section fails
here rather than in the next full bench. The sections on the dev chains share the tests' chains
(`devchain`: reverted after each test); the smart-account ones are in test_bench_smoke_aa.py."""

from __future__ import annotations

import pytest

from modalcore_dev.bench.parts import SMOKE_LOAD, Parts
from modalcore_dev.bench.sections import ON_BUNDLERS, ON_CHAINS, SECTIONS
from modalcore_dev.devchain.pytest_plugin import ChainsInfo

from .smoke import run_smoke

IN_PROCESS = ("production", "instructions", "engine", "socket", "directory", "audit", "inspect", "i18n", "load", "code")
ON_STORES = ("hosts",)  # Redis and PostgreSQL started by the section: its own test below
IN_CHROMIUM = ("latency",)
CHAINS_ONLY = tuple(name for name in ON_CHAINS if name != "walletconnect")


def test_rule_every_section_is_smoke_tested_somewhere() -> None:
    tested = set(IN_PROCESS) | set(IN_CHROMIUM) | set(ON_CHAINS) | set(ON_BUNDLERS) | set(ON_STORES)
    assert tested == set(SECTIONS)


@pytest.mark.parametrize("name", IN_PROCESS)
def test_rule_an_in_process_section_runs_and_measures(name: str) -> None:
    run_smoke(name, Parts(smoke=True, load=SMOKE_LOAD))


@pytest.mark.e2e
@pytest.mark.parametrize("name", IN_CHROMIUM)
def test_rule_a_chromium_section_runs_and_measures(name: str) -> None:
    run_smoke(name, Parts(smoke=True))


@pytest.mark.chain
@pytest.mark.parametrize("name", CHAINS_ONLY)
def test_rule_a_section_on_the_dev_chains_runs_and_measures(name: str, devchain: ChainsInfo) -> None:
    run_smoke(name, Parts(smoke=True, chains=devchain))


@pytest.mark.chain
@pytest.mark.e2e
def test_rule_the_walletconnect_section_runs_and_measures(devchain: ChainsInfo) -> None:
    run_smoke("walletconnect", Parts(smoke=True, chains=devchain))


def test_rule_intents_that_touch_no_durable_record_make_no_database_round_trip() -> None:
    """The several-hosts section's PostgreSQL round trips per intent (the hosts' statements over
    the load tool's open / press / back intents) are 0, on one host and on three."""
    figures = run_smoke("hosts", Parts(smoke=True))
    trips = [f for f in figures if "round trips per intent" in f.name]
    assert len(trips) == 2 and all(f.text.startswith("0.00;") for f in trips), [str(f) for f in trips]
