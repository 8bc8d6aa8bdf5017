"""The session doctor against real failing flows (issue 44 item 2): a spent mail budget (the
embedded wallet's real services and a real SMTP server) and a refused origin (a real engine on a
socket), a declined sign-in (the real SIWX services) and a stopped WalletConnect relay (the
engine's runtime against the local relay) are labelled with their causes."""

from __future__ import annotations

import asyncio
from typing import Any

from modalcore.embedded.budget import BudgetLimits
from modalcore.runtime.walletconnect import WalletConnectRuntime
from modalcore.store.memory import MemoryStore
from modalcore_dev.walletconnect_relay import running_relay
from modalcore.embedded.service import EmbeddedWallet
from modalcore.slices.doctor import Cause
from modalcore.server.metrics import Metrics
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer, running_server
from tests.embedded.world import EmailWorld, smtp, wallet
from tests.siwx_flow.test_siwx_flow import SiwxWorld
from tests.walletconnect.conftest import DAPP
from tests.walletconnect.test_engine_views import harness as wc_harness

__all__ = ["running_server", "smtp", "wallet"]


def test_a_spent_mail_budget_is_budget_spent(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    for i in range(BudgetLimits().session_per_hour + 1):
        world.h.advance(1_000)
        world.submit_email(f"visitor{i}@example.com")
        if world.h.view == "EmailVerifyOtp":
            assert world.h.intent("otp/change-email", "press") == "ok"
    found = world.h.model.doctor.last
    assert found is not None
    assert (found.flow, found.cause) == ("sign_in", Cause.BUDGET_SPENT)
    assert world.h.model.doctor.count == 1  # the mails that went out are no failure


async def test_a_refused_origin_is_counted_as_origin_refused(running_server: RunningServer) -> None:
    metrics: Metrics = running_server.app.state.metrics
    async with running_server.client(origin="https://evil.example.net") as client:
        assert await client.closed() == 4001
    assert metrics.failures == {("connect", "origin_refused", ""): 1}
    assert 'modalcore_session_failures_total{flow="connect",cause="origin_refused",wallet=""} 1' in \
        metrics.render(0)


def test_a_declined_sign_in_is_sign_in_request_rejected() -> None:
    """The SIWX services are the real ones (tests/siwx_flow): the wallet declines the message."""
    world = SiwxWorld()
    world.connect()
    assert world.driver.model.doctor.last is None
    world.driver.intent("siwx/sign")
    world.run_calls()
    world.driver.answer_last(code=4001, message="User rejected the request.")
    found = world.driver.model.doctor.last
    assert found is not None and (found.flow, found.cause) == ("sign_in", Cause.REQUEST_REJECTED)
    world.driver.expect(view="SIWXSignMessage", text="Copy support code")


def test_a_pairing_on_a_stopped_relay_is_relay_unreachable() -> None:
    """The engine's WalletConnect runtime against the local relay, stopped before the visitor
    picks WalletConnect: its real answer to `wc_pair` is what the session gets."""

    async def stopped_relay_answer() -> tuple[bool, Any, int, str]:
        async with running_relay() as relay:
            url = relay.url
        rt = WalletConnectRuntime(url, metadata=DAPP, secret=b"operator-secret-for-tests", store=MemoryStore())
        try:
            return await asyncio.wait_for(rt.run("session-1", {"method": "wc_pair", "networks": ["eip155:1"]}), 60)
        finally:
            await rt.close()

    ok, result, code, message = asyncio.run(stopped_relay_answer())
    assert not ok
    h = wc_harness()
    h.host("open")
    h.press("connect/wallet/walletConnect")
    h.relay("wc_pair", code=code, message=message)
    found = h.model.doctor.last
    assert found is not None and (found.flow, found.cause) == ("connect", Cause.RELAY_UNREACHABLE)
    assert "Copy support code" in h.texts()
