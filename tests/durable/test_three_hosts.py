"""Issue 42 item 3: three `serve` processes as three hosts (own folders, no shared file, one
config) behind nginx, on one Redis and one PostgreSQL the test starts (tests/durable/three_hosts.py).

- An email sign-in and an approved send with every request on another host than the one before
  (code asked on A, typed on B, the request asked on C, the frame's challenge from A, its Approve
  posted to B), and `kill -9` of the host holding the socket right after Approve: the visitor's
  page resumes on another host and is answered truthfully (the hash, or "Not sent" when the kill
  came before the broadcast was recorded, and the visitor asks again): exactly one transaction
  leaves the account, never two.
- PostgreSQL stopped for 5 s and started again: the host that needed it says why on /healthz
  while it is down, nothing acknowledged before is lost (the same email signs in to the same
  address on another host), and the hosts serve sign-ins again once it is back.
- The mail budget holds across the three hosts exactly as on one: sockets from one address on
  all three get `address_per_minute` codes in total.
- A social sign-in (the local OpenID provider as Google) with the socket on A, the provider's URL
  asked on B, the callback on C, confirmed on A; the same subject again from B: the same address.

The sponsored smart-account send and the sponsoring budget across the hosts: test_three_hosts_aa.py.

Real parts: Debian's redis-server, PostgreSQL 15 and nginx, Hardhat (the devchain plugin), a local
SMTP server, panva's oidc-provider. The visitor's frames are played by a `DeviceKey` over HTTP
(modalcore_dev/bench/embedded_client.py, as the bench does).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore.embedded.budget import BudgetLimits
from modalcore_dev.bench.embedded_client import answers, ask, begin, post_approve
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing import Client
from modalcore_testing.device import DeviceKey
from modalcore_testing.postgres import PostgresProcess

from ..embedded.social_frame import authorization_url, confirm
from ..embedded.test_social_server import popup
from .three_hosts import OPTS, STEP_S, Host, ThreeHosts, nonce_of, page, rpc, sign_in, world_of

pytestmark = pytest.mark.chain

RECEIVER = "0x000000000000000000000000000000000000dEaD"
OUTAGE_S = 5.0


@pytest.fixture()
def world(tmp_path: Path, cluster: PostgresProcess, redis_url: str, devchain: ChainsInfo,
          smtp: LocalSmtpServer, front: int, provider: DevOidcProvider) -> Iterator[ThreeHosts]:
    with world_of(tmp_path, cluster, redis_url, devchain, smtp, front, provider) as hosts:
        yield hosts


async def test_rule_every_request_on_another_host_then_kill_9_of_the_sockets_host_sends_once(
        world: ThreeHosts, smtp: LocalSmtpServer, devchain: ChainsInfo) -> None:
    a, b, c = world.hosts
    device = DeviceKey()
    visitor, address, _ = await sign_in(world, smtp, device, "kim@example.com", a)  # asked on A, typed on B
    rpc(devchain, "hardhat_setBalance", [address, hex(10**18)])
    async with page(c, visitor) as (client, _):  # the page's socket now on C
        eid = await ask(client, "send-1", "eth_sendTransaction",
                        [{"from": address, "to": RECEIVER, "value": hex(2 * 10**15)}])
        async with httpx.AsyncClient(base_url=a.http, timeout=STEP_S) as on_a, \
                httpx.AsyncClient(base_url=b.http, timeout=STEP_S) as on_b:
            begun = await begin(client, on_a, eid, device)  # the frame's challenge from A
            assert begun.get("nonce"), begun
            assert await post_approve(client, on_b, eid, device, begun) == 200  # its Approve posted to B
        c.engine.kill()  # the host holding the socket, right after Approve
        visitor = client
    async with page(a, visitor) as (client, http):  # the page comes back through A
        frames = list(client.frames)
        with contextlib.suppress(TimeoutError):
            if not answers(frames):
                frames += await client.recv_until(lambda f: bool(answers([f])), timeout=STEP_S / 4)
        if not answers(frames):
            # the kill came before the approval was saved: nothing ran, the frame asks again (on B)
            assert nonce_of(devchain, address) == 0
            assert (await http.get(f"/embedded/approve?session={client.session}&request={eid}")).status_code == 200
            async with httpx.AsyncClient(base_url=b.http, timeout=STEP_S) as on_b:
                assert await post_approve(client, on_b, eid, device, await begin(client, http, eid, device)) == 200
            frames += await client.recv_until(lambda f: bool(answers([f])), timeout=STEP_S)
        answer = [r for r in answers(frames) if r.get("id") == "send-1"][-1]
        if not answer["ok"]:
            # killed while signing, before the broadcast was recorded: nothing left, and said so
            # (typed); the visitor asks again (socket on A, challenge from B, Approve to A)
            assert nonce_of(devchain, address) == 0 and "Not sent" in answer["message"], answer
            eid = await ask(client, "send-2", "eth_sendTransaction",
                            [{"from": address, "to": RECEIVER, "value": hex(2 * 10**15)}])
            async with httpx.AsyncClient(base_url=b.http, timeout=STEP_S) as on_b:
                begun = await begin(client, on_b, eid, device)
            assert await post_approve(client, http, eid, device, begun) == 200
            frames = await client.recv_until(lambda f: any(r.get("id") == "send-2" for r in answers([f])),
                                             timeout=STEP_S)
            answer = [r for r in answers(frames) if r.get("id") == "send-2"][-1]
        assert answer["ok"] is True, answer
        await client.quiet(1.0)
    assert nonce_of(devchain, address) == 1  # exactly one transaction: never none unsaid, never two
    receipt = rpc(devchain, "eth_getTransactionReceipt", [answer["result"]])
    assert receipt["status"] == "0x1" and receipt["from"].lower() == address.lower()


async def _until_health(host: Host, status: int) -> dict[str, Any]:
    deadline = time.monotonic() + STEP_S
    while True:
        code, body = await asyncio.to_thread(host.health)
        if code == status:
            return body
        assert time.monotonic() < deadline, f"/healthz of {host.name} stayed {code}: {body}"
        await asyncio.sleep(0.2)


async def test_rule_postgres_down_5_s_loses_no_acknowledged_change_and_healthz_says_why(
        world: ThreeHosts, smtp: LocalSmtpServer, cluster: PostgresProcess) -> None:
    a, b, c = world.hosts
    device = DeviceKey()
    _, address, _ = await sign_in(world, smtp, device, "lee@example.com", a)  # acknowledged: connected
    cluster.stop()
    stopped = time.monotonic()
    try:
        async with page(c) as (client, _):  # a new visitor's code request on C needs the database
            await client.intent("connect/email", "submit", {"value": "max@example.com"})
            down = await _until_health(c, 503)
            assert down["ok"] is False and down["reason"].startswith("postgres: "), down
            assert "password" not in down["reason"]
            assert not smtp.mailbox.to("max@example.com")  # nothing mailed that was not recorded
        async with httpx.AsyncClient(base_url=b.http, timeout=STEP_S) as on_b:  # the host's backend API on B
            listed = await on_b.get("/v1/sessions/0x" + "00" * 19 + "01")
        assert listed.status_code == 503 and "error" in listed.json()  # typed, not a 500
        assert (await _until_health(b, 503))["reason"].startswith("postgres: ")
        await asyncio.sleep(max(0.0, OUTAGE_S - (time.monotonic() - stopped)))
    finally:
        cluster.start()
    assert (await _until_health(c, 200))["ok"] is True  # asked again on the next probe: back
    # what was acknowledged before the outage is there: the same email, on another pair of hosts,
    # signs in to the same address (its sealed key was read back, not made anew)
    _, again, _ = await sign_in(world, smtp, DeviceKey(), "lee@example.com", b)
    assert again == address
    # and the host that failed serves a new sign-in again
    _, other, _ = await sign_in(world, smtp, DeviceKey(), "max@example.com", c)
    assert other != address
    assert not [h.name for h in world.hosts if "Traceback" in h.engine.output()]  # refusals, typed


async def test_rule_the_mail_budget_holds_across_three_hosts_as_on_one(
        world: ThreeHosts, smtp: LocalSmtpServer) -> None:
    """Sockets from one client address, three on each host, ask codes for different emails: the
    address's budget is one row set in PostgreSQL, so `address_per_minute` codes are mailed in
    all, and every other socket shows the refusal."""
    limit = BudgetLimits().address_per_minute
    async with contextlib.AsyncExitStack() as stack:
        pages: list[Client] = []
        for index in range(3 * len(world.hosts)):
            client, _ = await stack.enter_async_context(page(world.hosts[index % len(world.hosts)]))
            pages.append(client)
        for index, client in enumerate(pages):
            await client.intent("connect/email", "submit", {"value": f"target{index}@example.com"})
        outcomes = []
        for client in pages:
            got = await client.recv_until(
                lambda f: "/embedded/signin?" in str(f) or "Too many codes were requested" in str(f), timeout=STEP_S)
            outcomes.append("mailed" if "/embedded/signin?" in str(got[-1]) else "refused")
    assert outcomes.count("mailed") == limit == 5
    deadline = time.monotonic() + STEP_S
    while len(smtp.mailbox.all()) < limit and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    assert len(smtp.mailbox.all()) == limit
    mailed = {to for mail in smtp.mailbox.all() for to in mail.recipients}
    assert len(mailed) == limit and all(re.fullmatch(r"target\d+@example\.com", to) for to in mailed)


def _connected(frame: dict[str, Any]) -> bool:
    return frame["t"] == "host_event" and frame.get("kind") == "account" and frame["data"].get("isConnected") is True


async def _social(world: ThreeHosts, on: Host, login: str) -> str:
    """Continue with Google with the socket on `on`: the frame's request for the provider's URL
    to the next host, the provider's callback to the one after, the popup's confirmation back to
    the socket's host; the address."""
    asked, called = world.next_after(on), world.next_after(world.next_after(on))
    device = DeviceKey()
    async with page(on, opts={**OPTS, "features": {"socials": ["google"]}}) as (client, _):
        await client.quiet(0.2)
        await client.intent("connect/social/google", "press")
        url = await authorization_url(client, asked.http, device)
        callback = await popup(url, login, callback_base=called.http)
        assert callback.status_code == 200, callback.text[:300]
        assert (await confirm(on.http, callback, device)).status_code == 200
        frames = await client.recv_until(_connected, timeout=STEP_S)
        account = [f["data"] for f in frames if _connected(f)][-1]
        assert account["connector"] == "ID_AUTH"
        return str(account["address"])


async def test_rule_a_social_sign_in_crosses_three_hosts_and_the_same_subject_gets_the_same_address(
        world: ThreeHosts) -> None:
    """Socket on A, the provider's URL from B, the callback on C, confirmed on A; then the same
    login with the socket on B (URL from C, callback on A, confirmed on B): the same address."""
    a, b, _ = world.hosts
    first = await _social(world, a, "zoe")
    assert await _social(world, b, "zoe") == first

