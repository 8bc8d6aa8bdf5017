"""The phone's `/ws/companion` socket on another engine process than its session (issue 44 item
1, several hosts; server/companion_relay.py): two engines on one Redis (hosts A and B, each its
own worker id, as two `serve` processes), the computer's socket on A, the phone's join on B.

Rules: B checks the join over A's last save and spends the nonce, the socket is relayed to A: the
phone gets the session's tree, a press on the phone moves the computer's tree and the phone sees
the patches (and back); a replayed nonce is refused on either host (`unknown_link`, 4006); the
phone's text or oversized frame is refused `malformed` / `too_large` by the owner as on its own
socket; a relay envelope not well formed is dropped with one line; A stopping closes the phone's socket
1001 (it joins again), and so does the session moving (the computer's page back through B: the
phone's next join is served on B); the owner checks a relayed join again; no traceback. The same over three `serve` processes behind nginx, with a
`kill -9` of the owner: tests/durable/test_three_hosts_companion.py."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

import httpx
import msgpack
import pytest

from modalcore.rules.limits import MAX_FRAME_BYTES
from modalcore.server.companion import signed_text
from modalcore.server.companion_relay import envelope
from modalcore.store.redis import RedisStore
from modalcore.wire.codec import decode, encode
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_PROJECT, Client, RunningServer

from ..embedded.device import DeviceKey, frame_headers
from ..embedded.mail_engine import mail_engine
from ..embedded.test_approval_credential import mail
from .test_companion_routes import Tree, _linked, _nonce
from .test_handoff_routes import OPTS

__all__ = ["mail"]

T = TypeVar("T")
PHONE_ENV: dict[str, Any] = {"mobile": True, "platform": "ios", "width": 390}


@pytest.fixture
def prefix() -> str:
    return f"relay{secrets.token_hex(4)}:"


@pytest.fixture
def hosts(tmp_path_factory: pytest.TempPathFactory, mail: LocalSmtpServer, redis_url: str,
          prefix: str) -> Iterator[tuple[RunningServer, RunningServer]]:
    store = {"kind": "redis", "url": redis_url, "prefix": prefix}
    with mail_engine(tmp_path_factory.mktemp("host-a"), mail, store=store) as a, \
            mail_engine(tmp_path_factory.mktemp("host-b"), mail, store=store) as b:
        assert a.hub.store.leases.worker_id != b.hub.store.leases.worker_id
        yield a, b


async def on(engine: RunningServer, step: Coroutine[Any, Any, T]) -> T:
    """`step` run on the engine's own loop (its store's client belongs to it)."""
    assert engine.hub.loop is not None
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(step, engine.hub.loop))


def companion_url(engine: RunningServer) -> str:
    return f"ws://127.0.0.1:{engine.port}/ws/companion?project={TEST_PROJECT}"


@contextlib.asynccontextmanager
async def linked_on(host: RunningServer, mail: LocalSmtpServer, phone: DeviceKey) -> AsyncIterator[tuple[Client, str]]:
    """The computer's page on `host`, signed in, its phone `phone` linked: (its client, the link)."""
    async with host.client() as client, httpx.AsyncClient(base_url=host.http_url, timeout=10) as http:
        yield client, await _linked(client, http, mail, phone)


async def nonce_on(host: RunningServer, link: str, phone: DeviceKey) -> str:
    """The phone's page asks `host` for a companion nonce."""
    async with httpx.AsyncClient(base_url=host.http_url, timeout=10) as http:
        given = await _nonce(http, link, phone, frame_headers(host.http_url))
    assert given.status_code == 200, given.text
    return str(given.json()["nonce"])


def signed_join(session: str, key: DeviceKey, nonce: str) -> dict[str, Any]:
    return {"companion": {"session": session, "public_key": key.spki, "nonce": nonce,
                          "signature": key.sign(signed_text(session, nonce))},
            "env": PHONE_ENV, "opts": {}, "wallets": []}


async def test_rule_a_phone_on_another_process_joins_through_the_owner_and_moves_its_tree(
        hosts: tuple[RunningServer, RunningServer], mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    a, b = hosts
    phone = DeviceKey()
    async with linked_on(a, mail, phone) as (client, link):
        session = client.session
        assert await on(b, b.hub.store.leases.holder(session)) == a.hub.store.leases.worker_id
        nonce = await nonce_on(b, link, phone)  # B reads A's last save
        desktop = Tree()
        desktop.take(client.frames)

        async with Client.open(companion_url(b), origin=b.http_url) as mobile:
            frames = await mobile.join(**signed_join(session, phone, nonce))
            assert [f["t"] for f in frames][:1] == ["joined"], frames
            if not any(f["t"] == "snapshot" for f in mobile.frames):
                await mobile.recv_until(lambda f: f["t"] == "snapshot")
            assert session not in b.hub.runners, "B took the session over instead of relaying the socket"
            mine = Tree()
            mine.take(mobile.frames)
            # the computer's page may still have patches on their way (its balances' answer came
            # while the phone joined): it reaches the phone's first tree, patch by patch
            await desktop.follow(client, lambda: desktop.wire == mine.wire)

            # a press on the phone moves the computer's tree; the phone sees the patches
            await mobile.intent("account/feature/receive", "press", {})
            await desktop.follow(client, lambda: "receive/body" in str(desktop.wire))
            await mine.follow(mobile, lambda: mine.wire == desktop.wire)
            # and back: a press on the computer moves the phone's
            await client.intent("header/back", "press", {})
            await desktop.follow(client, lambda: "receive/body" not in str(desktop.wire))
            await mine.follow(mobile, lambda: mine.wire == desktop.wire)

            # the captured join replayed, on B and on A: refused, the phone's socket untouched
            for host in (b, a):
                async with Client.open(companion_url(host), origin=host.http_url) as replay:
                    refused = await replay.join(**signed_join(session, phone, nonce))
                    assert (refused[-1]["t"], refused[-1].get("code")) == ("error", "unknown_link")
                    assert await replay.closed() == 4006

            # the phone's hostile frames, read by the owner as its own socket's: refused, typed
            await mobile.send_raw("a text frame")
            assert (await mobile.recv_until(lambda f: f["t"] == "error"))[-1]["code"] == "malformed"
            await mobile.send_raw(b"\x80" * (MAX_FRAME_BYTES + 10))
            assert (await mobile.recv_until(lambda f: f["t"] == "error"))[-1]["code"] == "too_large"

            # relay envelopes not well formed (not a map of bounded ids): dropped, one line each
            relay = a.hub.relay
            assert relay is not None
            await on(a, relay.heard(b"\x81\xa5relay\x01"))
            await on(a, relay.heard(encode(envelope("attach", "s" * 65, session, "w"))))
            await mobile.intent("account/feature/receive", "press", {})
            await mine.follow(mobile, lambda: "receive/body" in str(mine.wire))

            # the owner stops: the phone's socket closes 1001 (its page joins again)
            await asyncio.to_thread(a.stop)
            assert await mobile.closed(timeout=20) == 1001
        assert not b.hub.relay or not b.hub.relay.phones
    assert caplog.text.count("companion relay envelope could not be read") == 2
    assert "Traceback" not in caplog.text


async def test_rule_the_session_moving_closes_the_relayed_phone_1001_and_it_joins_again_where_it_is(
        hosts: tuple[RunningServer, RunningServer], mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    """The computer's page comes back through B (B takes the session over): the phone, relayed
    from B to A, is closed 1001 and its next join on B is served there, no relay."""
    caplog.set_level(logging.INFO)
    a, b = hosts
    phone = DeviceKey()
    async with linked_on(a, mail, phone) as (client, link):
        session = client.session
        nonce = await nonce_on(b, link, phone)
        async with Client.open(companion_url(b), origin=b.http_url) as mobile:
            assert (await mobile.join(**signed_join(session, phone, nonce)))[0]["t"] == "joined"
            async with b.client() as moved:  # the computer's page, reconnected through B
                moved.carry_on(client)
                frames = await moved.join(resume=client.resume, last=client.last, opts=OPTS)
                assert frames[0]["t"] == "joined" and frames[0]["resumed"] is True
                assert await on(b, b.hub.store.leases.holder(session)) == b.hub.store.leases.worker_id
                assert await mobile.closed(timeout=20) == 1001
                nonce = await nonce_on(b, link, phone)
                async with Client.open(companion_url(b), origin=b.http_url) as again:
                    assert (await again.join(**signed_join(session, phone, nonce)))[0]["t"] == "joined"
                    assert b.hub.runners[session].companion is not None, "not served where the session is"
                    await again.intent("account/feature/receive", "press", {})
                    await moved.recv_until(lambda f: f["t"] == "patch" and "receive/body" in str(f))
    assert "the session moved to another engine process" in caplog.text
    assert "Traceback" not in caplog.text


async def test_rule_the_owner_checks_a_relayed_join_again_and_refuses_it_typed(
        hosts: tuple[RunningServer, RunningServer], mail: LocalSmtpServer, redis_url: str, prefix: str,
        caplog: pytest.LogCaptureFixture) -> None:
    """What another process relays is checked again on the live session: a key the session does
    not link (a `peek` gone stale) is `not_linked`, a session not live there `unknown_link`, each
    an `error` then close 4006 sent back; a ping for a socket the owner does not hold is
    answered close 1001 (the phone joins again)."""
    caplog.set_level(logging.INFO)
    a, _ = hosts
    relay = RedisStore.from_url(redis_url, prefix=prefix)  # a third process's channel, played by the test
    heard: list[dict[str, Any]] = []

    async def keep(data: bytes) -> None:
        heard.append(msgpack.unpackb(data, raw=False))

    listening = asyncio.create_task(relay.leases.listen(keep))
    try:
        async with linked_on(a, mail, DeviceKey()) as (client, _):
            session, me, owner = client.session, relay.leases.worker_id, a.hub.store.leases.worker_id
            for socket, sent in (("s1", envelope("attach", "s1", session, me, key=DeviceKey().spki)),
                                 ("s2", envelope("attach", "s2", "made-up-session", me, key=DeviceKey().spki)),
                                 ("s3", envelope("ping", "s3", session, me))):
                assert await relay.leases.publish(owner, encode(sent)) == 1
            deadline = asyncio.get_running_loop().time() + 10
            while len(heard) < 5:
                assert asyncio.get_running_loop().time() < deadline, heard
                await asyncio.sleep(0.05)
            await client.quiet(0.2)
            assert a.hub.runners[session].companion is None, "a refused relayed join became the companion"
    finally:
        listening.cancel()
        await asyncio.gather(listening, return_exceptions=True)
        await relay.close()
    got = [(h["relay"], h["socket"], decode(h["data"])["code"] if h["relay"] == "send" else h.get("code")) for h in heard]
    assert got == [("send", "s1", "not_linked"), ("close", "s1", 4006), ("send", "s2", "unknown_link"),
                   ("close", "s2", 4006), ("close", "s3", 1001)]
    assert "Traceback" not in caplog.text
