"""Fixtures for engine rule tests: sessions driven through `modalcore.enginetest.Harness`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from modalcore.enginetest import METAMASK, Harness


@pytest.fixture
def make() -> Callable[..., Harness]:
    """Build a harness: `make(options=..., env=..., accounts=..., siwx=..., history=[...])`."""

    def build(**kwargs: Any) -> Harness:
        kwargs.setdefault("wallets", [METAMASK])
        return Harness(**kwargs)

    return build


@pytest.fixture
def h(make: Callable[..., Harness]) -> Harness:
    """A desktop visitor with one announced wallet; the modal is closed."""
    return make()


@pytest.fixture
def opened(h: Harness) -> Harness:
    """The same visitor with the modal opened on Connect."""
    assert h.host("open") == "ok"
    assert h.model.modal.open and h.view == "Connect"
    return h
