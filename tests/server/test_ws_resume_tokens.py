"""Resume tokens over a real socket: malformed ones, other origins, rotation, `leave`
(PROTOCOL.md, "Resume"). A token that does not verify is never an error: a new session."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from modalcore_testing import TEST_ORIGIN, Client, RunningServer

# Malformed in every way a page (or a visitor editing localStorage) could send.
BAD_TOKENS = [
    "",
    "abc",
    "a.b",
    "s1.1700000000.ab12",  # the old three-part format
    "s1.1.99999999999." + "é" * 64,  # non-ASCII MAC (compare_digest raised TypeError on it)
    "s1.99999999999." + "é" * 64,
    "s1.1.99999999999." + "\u0661" * 64,  # Arabic-Indic digits pass str.isdigit()
    "s1.².99999999999." + "0" * 64,
    "☃.1.99999999999." + "0" * 64,
    "s1.1.99999999999." + "0" * 64,  # well formed, wrong MAC
    "czE.MQ.OTk5OTk.AAAA",  # base64 parts
    "!!!.%%%.***.$$$",
    "s1.1.2.3.4.5",
    "x" * 60_000,  # huge (the frame still fits in 64 KiB)
    "\x00" * 100,
]


async def test_a_malformed_resume_token_gives_a_fresh_session(
    running_server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    for token in BAD_TOKENS:
        async with running_server.client() as client:
            frames = await client.join(resume=token)
            assert frames[0]["t"] == "joined", (token[:40], frames[0])
            assert frames[0]["resumed"] is False
            assert [f["t"] for f in frames[1:3]] == ["theme", "snapshot"]
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert problems == []


async def used_session(server: RunningServer, origin: str = TEST_ORIGIN) -> Client:
    """Hand back a closed client whose session was used (it stays and is stored)."""
    async with server.client(origin=origin) as client:
        await client.join()
        await client.intent("host", "open")
        await client.recv_until(lambda f: f["t"] == "intent_ack")
    return client


async def test_a_token_presented_from_another_origin_gives_a_fresh_session(
    running_server: RunningServer,
) -> None:
    async with running_server.client() as owner:
        await owner.join()
        await owner.intent("host", "open")
        await owner.recv_until(lambda f: f["t"] == "intent_ack")
        # every http://localhost page is an allowed origin of the project by default
        async with running_server.client(origin="http://localhost:3000") as thief:
            frames = await thief.join(resume=owner.resume, last=owner.last)
            assert frames[0]["resumed"] is False and frames[0]["session"] != owner.session
        # the owner's socket was not taken over: it still works
        await owner.intent("host", "close")
        assert (await owner.recv_until(lambda f: f["t"] == "intent_ack"))[-1]["status"] == "ok"


async def test_each_join_carries_a_new_token_and_the_previous_one_still_resumes(
    running_server: RunningServer,
) -> None:
    first = await used_session(running_server)
    async with Client.open(running_server.ws_url(), seq=first.seq) as again:
        frames = await again.join(resume=first.resume)
        assert frames[0]["resumed"] is True and frames[0]["session"] == first.session
        rotated = again.resume
    assert rotated != first.resume and rotated.split(".")[0] == first.session
    # a reconnect that raced the `joined` frame still has the previous token: within the grace
    async with Client.open(running_server.ws_url(), seq=again.seq) as racing:
        frames = await racing.join(resume=first.resume)
        assert frames[0]["resumed"] is True and frames[0]["session"] == first.session
    # two generations back: refused (the grace after a rotation: tests/server/test_hub.py)
    async with Client.open(running_server.ws_url()) as stale:
        frames = await stale.join(resume=first.resume)
        assert frames[0]["resumed"] is False and frames[0]["session"] != first.session


async def test_after_leave_the_token_gives_a_fresh_session(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        await client.join()
        await client.intent("host", "open")
        await client.recv_until(lambda f: f["t"] == "intent_ack")
        session = client.session
        running_server.wait_for(lambda: session in running_server.hub.runners)
        await client.send({"t": "leave"})
        assert await client.closed() == 1000
    running_server.wait_for(lambda: session not in running_server.hub.runners)
    assert await running_server.hub.store.load(session, running_server.hub.clock.now_ms()) is None
    async with Client.open(running_server.ws_url()) as again:
        frames = await again.join(resume=client.resume)
        assert frames[0]["resumed"] is False and frames[0]["session"] != session


@pytest.mark.parametrize("respell", [
    lambda s, g, e, m: f"{s}.{g}.0{e}.{m}",  # a leading zero in the expiry (issue 27)
    lambda s, g, e, m: f"{s}.0{g}.{e}.{m}",  # and in the generation
    lambda s, g, e, m: f"{s}.{g}.+{e}.{m}",
    lambda s, g, e, m: f"{s}.{g}.{e}.{m.upper()}",  # upper-case MAC
    lambda s, g, e, m: f"{s}.{g}. {e}.{m}",
    lambda s, g, e, m: f"{s}.{g}.{e}.{m}\n",
])
async def test_a_token_spelled_otherwise_than_issued_does_not_resume(
    running_server: RunningServer, respell: Any,
) -> None:
    """The MAC covers the numbers, not their spelling: only the issued spelling resumes."""
    first = await used_session(running_server)
    session, generation, expiry, mac = first.resume.split(".")
    async with Client.open(running_server.ws_url(), seq=first.seq) as again:
        frames = await again.join(resume=respell(session, generation, expiry, mac))
        assert frames[0]["resumed"] is False and frames[0]["session"] != first.session
    async with Client.open(running_server.ws_url(), seq=first.seq) as honest:  # the issued one still does
        frames = await honest.join(resume=first.resume)
        assert frames[0]["resumed"] is True and frames[0]["session"] == first.session
