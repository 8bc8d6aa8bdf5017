"""Continue on your phone over three hosts (issue 44 item 1; server/companion_relay.py): three
`serve` processes behind nginx on one Redis and one PostgreSQL (tests/durable/three_hosts.py),
every request of the phone's on another host than the computer's socket.

- The computer's socket on A (signed in by email, the code typed on C); the link claimed on C,
  the computer's Yes posted to B, the phone's nonce from C, its companion join on B: B relays the
  socket to A, which holds the session. A press on the phone moves the computer's tree and the
  phone sees the patches (and back); the captured join replayed on C and on A is `unknown_link`.
- `kill -9` of A: the phone's socket on B closes 1001 (its owner stopped answering). The
  computer's page comes back through C (C takes the session over); the phone joins again on B
  with a fresh nonce, relayed to C now, and its press moves the computer there.
- C stopped (SIGTERM): the phone's socket closes 1001 again. No traceback in any host's log.

Real parts: Debian's redis-server, PostgreSQL 15 and nginx, a local SMTP server; the computer's
and the phone's browsers are played over HTTP and websockets with their `DeviceKey`s."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore.netports import HOST
from modalcore.slices.handoff import link_digest
from modalcore_dev.bench.embedded_client import post_code, submit_email
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_PROJECT, Client
from modalcore_testing.device import DeviceKey
from modalcore_testing.postgres import PostgresProcess

from ..embedded.device import frame_headers
from ..handoff.test_companion_relay import signed_join
from ..handoff.test_companion_routes import Tree, _nonce
from ..handoff.test_handoff_routes import _claim, _confirm, _link, _part
from .three_hosts import STEP_S, Host, ThreeHosts, config, page, three_hosts

OPTS = {"networks": ["eip155:1"], "features": {"continueOnPhone": True}, "metadata": {"name": "Three hosts"}}


@pytest.fixture()
def world(tmp_path: Path, cluster: PostgresProcess, redis_url: str, smtp: LocalSmtpServer,
          front: int) -> Iterator[ThreeHosts]:
    if cluster.process is None:
        cluster.start()
    engine_config = config(cluster.create_database(), redis_url, f"phone{secrets.token_hex(4)}:", None, smtp, front, {},
                           public_url=f"http://{HOST}:{front}")  # what the links name: nginx's front
    with three_hosts(tmp_path, engine_config, front) as hosts:
        yield hosts


def engine_origin(world: ThreeHosts) -> str:
    """The engine's pages' origin in the browser: its public URL, nginx's front (the door a
    test's request goes through picks the host, as the balancer would)."""
    return f"http://{HOST}:{world.front}"


def companion_url(host: Host) -> str:
    return f"ws://{HOST}:{host.door}/ws/companion?project={TEST_PROJECT}"


async def until(step: Callable[[], Any], done: Callable[[Any], bool]) -> Any:
    """`step()` again until `done` (another host reads what the session's host saved last, which
    may land a few milliseconds after the frame that drew it)."""
    deadline = asyncio.get_running_loop().time() + STEP_S
    while True:
        answer = await step()
        if done(answer) or asyncio.get_running_loop().time() > deadline:
            return answer
        await asyncio.sleep(0.1)


async def nonce_from(host: Host, origin: str, link: str, phone: DeviceKey) -> str:
    async with httpx.AsyncClient(base_url=host.http, timeout=STEP_S) as http:
        given = await until(lambda: _nonce(http, link, phone, frame_headers(origin)),
                            lambda r: r.status_code != 404)
    assert given.status_code == 200, given.text
    return str(given.json()["nonce"])


async def joined(host: Host, origin: str, session: str, phone: DeviceKey, nonce: str, stack: contextlib.AsyncExitStack
                 ) -> tuple[Client, Tree]:
    mobile = await stack.enter_async_context(Client.open(companion_url(host), origin=origin))
    frames = await mobile.join(**signed_join(session, phone, nonce))
    assert frames[0]["t"] == "joined", frames
    if not any(f["t"] == "snapshot" for f in mobile.frames):
        await mobile.recv_until(lambda f: f["t"] == "snapshot", timeout=STEP_S)
    tree = Tree()
    tree.take(mobile.frames)
    return mobile, tree


async def both_show(client: Client, desktop: Tree, mobile: Client, mine: Tree, shown: Callable[[str], bool]) -> None:
    """Both pages' frames taken until the computer's tree shows what `shown` looks for and the
    phone's tree is the same."""
    deadline = asyncio.get_running_loop().time() + STEP_S
    while not (shown(str(desktop.wire)) and mine.wire == desktop.wire):
        assert asyncio.get_running_loop().time() < deadline, (desktop.wire, mine.wire)
        desktop.take(await client.quiet(0.2))
        mine.take(await mobile.quiet(0.2))


async def press_moves_both(client: Client, desktop: Tree, mobile: Client, mine: Tree) -> None:
    """Receive pressed on the phone, then Back on the computer: both trees move alike."""
    await mobile.intent("account/feature/receive", "press", {})
    await both_show(client, desktop, mobile, mine, lambda tree: "receive/body" in tree)
    await client.intent("header/back", "press", {})
    await both_show(client, desktop, mobile, mine, lambda tree: "receive/body" not in tree)


async def test_rule_a_phone_joins_through_any_host_and_an_owner_gone_closes_it_1001(
        world: ThreeHosts, smtp: LocalSmtpServer) -> None:
    a, b, c = world.hosts
    origin = engine_origin(world)
    desktop_key, phone = DeviceKey(), DeviceKey()
    async with page(a, opts=OPTS) as (client, _), \
            httpx.AsyncClient(base_url=b.http, timeout=STEP_S) as on_b, \
            httpx.AsyncClient(base_url=c.http, timeout=STEP_S) as on_c:
        code = await submit_email(client, smtp, "pia@example.com")
        await post_code(client, on_c, code, desktop_key)  # typed on C
        link = await _link(client)
        claimed = await until(lambda: _claim(on_c, link, phone, frame_headers(origin)), lambda r: r.status_code != 404)
        assert claimed.status_code == 202, claimed.text
        await client.recv_until(lambda f: "Does your phone show this code?" in str(f), timeout=STEP_S)
        digest = link_digest(client.session, _part(link).rsplit(".", 1)[1])
        yes = await _confirm(on_b, client.session, digest, phone, desktop_key, frame_headers(b.http))  # its frame, served by B
        assert yes.status_code == 200, yes.text
        await client.recv_until(lambda f: "Your phone is connected" in str(f), timeout=STEP_S)
        session = client.session
        desktop = Tree()
        desktop.take(client.frames)

        async with contextlib.AsyncExitStack() as stack:
            nonce = await nonce_from(c, origin, link, phone)
            mobile, mine = await joined(b, origin, session, phone, nonce, stack)  # B relays it to A
            await desktop.follow(client, lambda: desktop.wire == mine.wire, STEP_S)  # patches on their way
            await press_moves_both(client, desktop, mobile, mine)
            for host in (c, a):  # the captured join replayed: refused, typed
                async with Client.open(companion_url(host), origin=origin) as replay:
                    refused = await replay.join(**signed_join(session, phone, nonce))
                    assert (refused[-1]["t"], refused[-1].get("code")) == ("error", "unknown_link"), refused
                    assert await replay.closed(timeout=STEP_S) == 4006

            a.engine.kill()  # the session's owner stops answering
            assert await mobile.closed(timeout=STEP_S) == 1001
            assert "the relayed phone's socket closed: its owner" in b.engine.output()  # gone, or silent
        visitor = client

    async with page(c, visitor) as (client, _), contextlib.AsyncExitStack() as stack:  # the computer back, on C
        await client.send({"t": "resync", "v": 0})  # its tree from a snapshot (the test's pages keep none)
        desktop = Tree()
        desktop.take(await client.recv_until(lambda f: f["t"] == "snapshot", timeout=STEP_S))
        nonce = await nonce_from(b, origin, link, phone)  # the phone's page asks a fresh nonce and joins again
        mobile, mine = await joined(b, origin, session, phone, nonce, stack)  # relayed to C now
        await press_moves_both(client, desktop, mobile, mine)
        c.engine.stop()  # SIGTERM: the owner closes its companion, relayed
        assert await mobile.closed(timeout=STEP_S) == 1001

    for host in (b, c):
        assert "Traceback" not in host.engine.output(), host.engine.output()[-3000:]
