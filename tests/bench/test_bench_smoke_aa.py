"""Issue 45: the smart-account bench sections at their smoke sizes (one UserOperation, one
Approve, one batch), on the tests' chains with their bundler (`aachains`)."""

from __future__ import annotations

import pytest

from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.sections import ON_BUNDLERS
from modalcore_dev.devchain.pytest_plugin import AaChains

from .smoke import run_smoke

pytestmark = pytest.mark.chain


@pytest.mark.parametrize("name", ON_BUNDLERS)
def test_rule_a_smart_account_section_runs_and_measures(name: str, aachains: AaChains) -> None:
    run_smoke(name, Parts(smoke=True, chains=aachains.chains, bundlers=aachains.bundler_urls))
