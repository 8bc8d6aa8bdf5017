"""The bundler's check before a smart account's approval (issue 43 items 1 and 4), its bounds:
the reason alto gives is shown readable (revert data decoded) and bounded, whatever the bundler
sends; a node and a bundler that never answer end the check as a typed timeout within the 1.5 s
(the approval then says the check is unavailable), with no traceback."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from modalcore.aa.estimate import reason_of
from modalcore.core.services import ServiceContext, ServiceError
from modalcore.embedded.smart_estimate import userop_check
from modalcore.aa.ledger import memory_ledger
from modalcore.aa.userop import counterfactual_address
from modalcore.runtime.clock import FakeClock
from modalcore.server.config import dev_networks, parse_config
from modalcore.services.domain.shapes import UserOpCheckArgs

FACTORY = "0x" + "11" * 20
OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
ERROR_STRING = ("0x08c379a0" + "20".rjust(64, "0") + "26".rjust(64, "0")
                + b"ERC20: transfer amount exceeds balance".hex().ljust(64 * 2, "0"))


@pytest.mark.parametrize(("message", "shown"), [
    (f"UserOperation reverted during simulation with reason: {ERROR_STRING}", "ERC20: transfer amount exceeds balance"),
    ("UserOperation reverted during simulation with reason: AA21 didn't pay prefund", "AA21 didn't pay prefund"),
    ("UserOperation reverted during simulation with reason: 0x4e487b71" + "11".rjust(64, "0"), "panic 0x11"),
    ("UserOperation reverted during simulation with reason: 0xdeadbeef" + "00" * 40, "0xdeadbeef"),
    ("UserOperation reverted during simulation with reason: ", "no reason given"),
])
def test_rule_the_bundlers_reason_is_shown_readable(message: str, shown: str) -> None:
    assert reason_of(message) == shown


def test_rule_a_hostile_reason_is_printable_and_bounded() -> None:
    hostile = "with reason: \x1b[31m<script>" + "\u202e" * 50 + "x" * 10_000
    shown = reason_of(hostile)
    assert len(shown) <= 160 and shown.startswith("[31m<script>") and all(" " <= c <= "~" for c in shown)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_rule_a_node_and_bundler_that_never_answer_end_as_a_timeout(
        silent_port: int, caplog: pytest.LogCaptureFixture) -> None:
    url = f"http://127.0.0.1:{silent_port}"
    config = parse_config({"networks": dev_networks({31337: url}, {}),
                           "smart_accounts": {"chains": {"eip155:31337": {"bundler_url": url, "factory": FACTORY}}}})
    args = UserOpCheckArgs.model_validate({
        "chain": "eip155:31337", "owner": OWNER, "account": counterfactual_address(FACTORY, OWNER),
        "method": "eth_sendTransaction", "calls": [{"to": OWNER, "value": "0x1"}]})

    async def check() -> None:
        async with httpx.AsyncClient() as http:
            ctx = ServiceContext("s", "p", FakeClock(0), http=http, config=config)
            await userop_check(ctx, memory_ledger(), args)

    with caplog.at_level(logging.DEBUG), pytest.raises(ServiceError) as refused:
        asyncio.run(check())
    assert refused.value.kind == "timeout"
    assert "Traceback" not in caplog.text


def test_rule_a_request_not_from_the_owners_account_is_refused() -> None:
    config = parse_config({"networks": dev_networks({31337: "http://127.0.0.1:9"}, {}),
                           "smart_accounts": {"chains": {"eip155:31337": {"bundler_url": "http://127.0.0.1:9",
                                                                          "factory": FACTORY}}}})
    args = UserOpCheckArgs.model_validate({"chain": "eip155:31337", "owner": OWNER, "account": "0x" + "22" * 20,
                                           "method": "wallet_sendCalls", "calls": [{"to": OWNER}]})

    async def check() -> None:
        async with httpx.AsyncClient() as http:
            await userop_check(ServiceContext("s", "p", FakeClock(0), http=http, config=config), memory_ledger(), args)

    with pytest.raises(ServiceError) as refused:
        asyncio.run(check())
    assert refused.value.kind == "invalid"
