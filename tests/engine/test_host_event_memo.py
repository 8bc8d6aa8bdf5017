"""Issue 17: a host event is derived again only when a slice it reads changed (hostevents.KINDS).

Rules: after every step the host events sent so far are what the model says now (a memo that
skipped a changed slice would leave an old value), and a step that leaves an event's slices
alone sends nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modalcore.core.evolve import replace
from modalcore.engine import hostevents
from modalcore.enginetest import Harness
from modalcore.slices.model import Model, Step

from ..devwallet import dev_session


def _current(h: Harness) -> None:
    assert h.session.host_sent == hostevents.host_state(h.model)


def _sent(frames: list[dict[str, Any]]) -> list[str]:
    return [f["kind"] for f in frames if f["t"] == "host_event"]


def _with(**slices: Callable[[Model], object]) -> Callable[[Model], Step]:
    return lambda model: (replace(model, **{name: make(model) for name, make in slices.items()}), [])


def test_rule_host_events_follow_the_slices_they_read(opened: Harness) -> None:
    h = opened
    _current(h)
    frames = h.apply(_with(siwx=lambda m: replace(m.siwx, enabled=not m.siwx.enabled)))
    assert _sent(frames) == ["siwx"]
    _current(h)
    frames = h.apply(_with(modal=lambda m: replace(m.modal, loading=not m.modal.loading)))
    assert _sent(frames) == ["state"]
    _current(h)
    frames = h.apply(_with(router=lambda m: replace(m.router, history=m.router.history)))
    assert _sent(frames) == []  # a new router object that says the same: compared, nothing sent
    assert h.press("connect/all-wallets") == "ok"
    _current(h)
    assert h.host("close") == "ok"
    _current(h)


def test_rule_a_connection_updates_the_account_event() -> None:
    h = dev_session()
    h.connect_wallet()
    _current(h)
    assert h.session.host_sent["account"]["isConnected"] is True
