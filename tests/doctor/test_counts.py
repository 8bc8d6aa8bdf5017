"""The session doctor's counts (issue 44 item 2): each diagnosis is one local analytics event
named by flow, cause and wallet (counted per day by /operator/analytics, never posted to the
hosted API) and one `modalcore_session_failures_total{flow,cause,wallet}` sample in /metrics."""

from __future__ import annotations

import asyncio

import httpx

from modalcore.analytics.events import derived, doctor_event
from modalcore.ports.observe import Step
from modalcore.server.metrics import Metrics, MetricsObserver
from modalcore.store.base import StoredEvent
from modalcore.store.memory import MemoryStore
from modalcore_testing import make_test_config, start_server

from .test_causes import _pressed_dev_wallet

TOKEN = "operator-token-for-the-doctor-counts"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _rejected_step() -> Step:
    h = _pressed_dev_wallet()
    before = h.model
    h.answer("eth_requestAccounts", code=4001, message="User rejected the request.")
    return Step("session-1", h.now, before, h.model, None, [], [])


def test_a_diagnosis_is_one_analytics_event_named_by_flow_cause_and_wallet() -> None:
    step = _rejected_step()
    wallet = step.after.doctor.last.wallet  # type: ignore[union-attr]
    names = [name for name, _ in derived(step)]
    assert doctor_event("connect", "request_rejected", wallet) in names
    same = Step("session-1", step.at, step.after, step.after, None, [], [])
    assert not [n for n, _ in derived(same) if n.startswith("DOCTOR")]  # counted once


def test_a_diagnosis_is_counted_in_metrics_by_flow_cause_and_wallet() -> None:
    metrics = Metrics()
    step = _rejected_step()
    asyncio.run(MetricsObserver(metrics).observe(step))
    wallet = step.after.doctor.last.wallet  # type: ignore[union-attr]
    text = metrics.render(0)
    assert (f'modalcore_session_failures_total{{flow="connect",cause="request_rejected",'
            f'wallet="{wallet}"}} 1') in text
    other = Metrics()
    other.add(metrics.snapshot(0), live=True)  # another worker's scrape sums it in
    assert f'cause="request_rejected",wallet="{wallet}"}} 1' in other.render(0)


def test_the_analytics_page_lists_failures_per_cause_wallet_and_day() -> None:
    store = MemoryStore()
    jan_1 = 1_704_067_200_000

    async def fill() -> None:
        events = [(0, doctor_event("connect", "request_rejected", "io.metamask")),
                  (0, doctor_event("connect", "request_rejected", "io.metamask")),
                  (1, doctor_event("send", "chain_unreachable", "")), (1, "MODAL_OPEN")]
        for i, (day, name) in enumerate(events):
            await store.analytics.add(StoredEvent(f"e{i}", "test", "s1", name, jan_1 + day * 86_400_000, b"{}"))

    asyncio.run(fill())
    config = make_test_config(operator_token=TOKEN)
    with start_server(config, store=store) as server:
        page = httpx.get(f"{server.http_url}/operator/analytics", headers=AUTH, timeout=5).text
    failures = page[page.index("Failures by cause and wallet"):]
    assert ("<tr><td>test</td><td>connect</td><td>request_rejected</td><td>io.metamask</td>"
            "<td>2</td><td>0</td><td>2</td></tr>") in failures
    assert "<td>send</td><td>chain_unreachable</td><td>-</td><td>0</td><td>1</td><td>1</td>" in failures
    assert "MODAL_OPEN" not in failures
