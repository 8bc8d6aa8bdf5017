"""Issue 42 item 3, smart accounts: the three hosts of test_three_hosts.py with sponsored smart
accounts (a real bundler, alto, per dev chain; the VerifyingPaymaster). A sponsored send from the
smart account with every request on another host than the one before, and the sponsoring budget
held across the three hosts exactly as on one: three sessions of the same account, one on each
host, approved at once with room left for one operation: one is sponsored, the other two are
refused, and the ledger never passes the budget."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore.durable.postgres import PostgresDb
from modalcore_dev.bench.embedded_client import answers, ask, begin, post_approve
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devchain.smart_accounts import PAYMASTER_SIGNER_KEY_PATH, dev_smart_accounts_section
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing import TEST_PROJECT, Client
from modalcore_testing.device import DeviceKey
from modalcore_testing.postgres import PostgresProcess

from .three_hosts import STEP_S, Host, ThreeHosts, page, rpc, sign_in, world_of

pytestmark = pytest.mark.chain

RECEIVER = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc"  # dev account 5
CENT = 10**16
FUNDS = 10**18
BUDGET = 10**17  # per smart account and day (the dev section's)
EMAIL = "sia@example.com"


@pytest.fixture()
def world(tmp_path: Path, cluster: PostgresProcess, redis_url: str, aachains: AaChains,
          smtp: LocalSmtpServer, front: int, provider: DevOidcProvider) -> Iterator[ThreeHosts]:
    section = dev_smart_accounts_section(aachains.chains.deployment, aachains.bundler_urls, (TEST_PROJECT,))
    assert section["sponsor"]["budget_wei_per_day"] == BUDGET
    for chain in section["chains"].values():
        chain["paymaster_signer_key_file"] = "paymaster.key"  # each host's own copy
    with world_of(tmp_path, cluster, redis_url, aachains.chains, smtp, front, provider,
                  copies={"paymaster.key": PAYMASTER_SIGNER_KEY_PATH}, smart_accounts=section) as hosts:
        yield hosts


def _spent(world: ThreeHosts) -> int:
    """The day's sponsored wei of every smart account, as the shared ledger holds it."""
    db = PostgresDb(world.db_url)
    try:
        return sum(int(str(row[0])) for row in db.execute("SELECT wei FROM sponsored_wei").rows)
    finally:
        db.close()


async def _send(world: ThreeHosts, before: Client, device: DeviceKey, on: Host, rpc_id: str
                ) -> tuple[Client, dict[str, Any]]:
    """The host's eth_sendTransaction with the page's socket on `on`, the frame's challenge from
    the next host, its Approve posted to the one after; the host's answer."""
    challenge_from, approve_to = world.next_after(on), world.next_after(world.next_after(on))
    async with page(on, before) as (client, _):
        eid = await ask(client, rpc_id, "eth_sendTransaction", [{"to": RECEIVER, "value": hex(CENT)}])
        async with httpx.AsyncClient(base_url=challenge_from.http, timeout=STEP_S) as first, \
                httpx.AsyncClient(base_url=approve_to.http, timeout=STEP_S) as second:
            begun = await begin(client, first, eid, device)
            assert await post_approve(client, second, eid, device, begun) == 200
        frames = await client.recv_until(lambda f: any(r.get("id") == rpc_id for r in answers([f])), timeout=STEP_S)
        await client.quiet(0.3)
    return client, [r for r in answers(frames) if r.get("id") == rpc_id][-1]


def _balance(aa: AaChains, address: str) -> int:
    return int(rpc(aa.chains, "eth_getBalance", [address, "latest"]), 16)


async def test_rule_a_sponsored_send_crosses_hosts_and_the_sponsoring_budget_holds_across_three(
        world: ThreeHosts, smtp: LocalSmtpServer, aachains: AaChains) -> None:
    a, b, c = world.hosts
    device = DeviceKey()
    before, smart, _ = await sign_in(world, smtp, device, EMAIL, a)  # asked on A, typed on B
    rpc(aachains.chains, "hardhat_setBalance", [smart, hex(FUNDS)])
    # a sponsored send (the account's first operation deploys it): socket on C, challenge from A, Approve to B
    before, answer = await _send(world, before, device, c, "send-1")
    assert answer["ok"] is True, answer
    receipt = rpc(aachains.chains, "eth_getTransactionReceipt", [answer["result"]])
    assert receipt is not None and receipt["status"] == "0x1"
    assert _balance(aachains, smart) == FUNDS - CENT  # the paymaster paid the gas
    first = _spent(world)
    assert 0 < first < BUDGET
    # a second one, deployed now: socket on A, challenge from B, Approve to C
    before, answer = await _send(world, before, device, a, "send-2")
    assert answer["ok"] is True, answer
    charge = _spent(world) - first  # what one operation of a deployed account is charged
    assert charge > 0 and _balance(aachains, smart) == FUNDS - 2 * CENT
    # the day as if other sends had spent the budget but for 1.5 operations: room for one
    db = PostgresDb(world.db_url)
    try:
        db.execute("UPDATE sponsored_wei SET wei = ?", (str(BUDGET - charge * 3 // 2),))
    finally:
        db.close()
    # three sessions of the same account, one per host, each asking a send, approved at once
    pages: list[tuple[Client, DeviceKey]] = []
    for host in world.hosts:
        key = DeviceKey()
        signed, again, _ = await sign_in(world, smtp, key, EMAIL, world.next_after(host))  # asked on the next, typed on the one after
        assert again == smart
        pages.append((signed, key))
    async with contextlib.AsyncExitStack() as stack:
        asked = []
        for host, (signed, key) in zip(world.hosts, pages):
            client, _ = await stack.enter_async_context(page(host, signed))
            eid = await ask(client, "race", "eth_sendTransaction", [{"to": RECEIVER, "value": hex(CENT)}])
            challenge_from, approve_to = world.next_after(host), world.next_after(world.next_after(host))
            reader = await stack.enter_async_context(httpx.AsyncClient(base_url=challenge_from.http, timeout=STEP_S))
            http = await stack.enter_async_context(httpx.AsyncClient(base_url=approve_to.http, timeout=STEP_S))
            asked.append((client, key, eid, http, await begin(client, reader, eid, key)))
        statuses = await asyncio.gather(*(post_approve(client, http, eid, key, begun)
                                          for client, key, eid, http, begun in asked))
        assert statuses == [200, 200, 200]
        outcomes = []
        for client, *_ in asked:
            frames = await client.recv_until(lambda f: any(r.get("id") == "race" for r in answers([f])), timeout=STEP_S)
            outcomes.append([r for r in answers(frames) if r.get("id") == "race"][-1])
    assert sorted(o["ok"] for o in outcomes) == [False, False, True], outcomes  # exactly one sponsored
    # the other two by the budget (not by the bundler: one account's operations also race for its nonce)
    assert [o["message"] for o in outcomes if not o["ok"]] == ["user operation refused: budget_spent"] * 2, outcomes
    assert _spent(world) <= BUDGET
    deadline = time.monotonic() + STEP_S
    while _balance(aachains, smart) != FUNDS - 3 * CENT:  # the sponsored one landed, nothing else
        assert time.monotonic() < deadline, _balance(aachains, smart)
        await asyncio.sleep(0.2)
