"""A companion nonce joins once across engine processes (issue 44, part 3 "Left";
server/companion.py): two engines' session stores on one Redis (hosts A and B, as two `serve`
processes share it). The nonce given on A (`POST /continue/companion`) is spent by the join on
B, and a replay on either host is refused; a nonce given for another session, or past its time,
is refused; a store that cannot be reached refuses the join with one line, no traceback."""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator

import pytest

from modalcore.netports import free_port
from modalcore.rules.limits import COMPANION_NONCE_MS
from modalcore.server.approval import issue_nonce
from modalcore.server.companion import keep_nonce, spend_nonce
from modalcore.store.redis import RedisStore
from modalcore.wire.frames import CompanionJoin

SECRET = b"s" * 32
NOW = 1_800_000_000_000


@pytest.fixture
async def hosts(redis_url: str) -> AsyncIterator[tuple[RedisStore, RedisStore]]:
    prefix = f"comp{secrets.token_hex(4)}:"
    stores = (RedisStore.from_url(redis_url, prefix=prefix), RedisStore.from_url(redis_url, prefix=prefix))
    yield stores
    for store in stores:
        await store.close()


def _join(session: str, nonce: str) -> CompanionJoin:
    return CompanionJoin(session=session, public_key="k", nonce=nonce, signature="s")


async def test_rule_a_nonce_given_on_one_host_joins_once_on_any(hosts: tuple[RedisStore, RedisStore]) -> None:
    a, b = hosts
    nonce = issue_nonce(SECRET, "session-1", "companion", NOW)
    await keep_nonce(a, "session-1", nonce, NOW)
    assert await spend_nonce(b, _join("session-1", nonce), NOW + 1) is True
    assert await spend_nonce(a, _join("session-1", nonce), NOW + 2) is False, "replayed on the host that gave it"
    assert await spend_nonce(b, _join("session-1", nonce), NOW + 3) is False, "replayed on the host that spent it"


async def test_rule_a_nonce_of_another_session_or_past_its_time_does_not_join(
        hosts: tuple[RedisStore, RedisStore]) -> None:
    a, b = hosts
    other = issue_nonce(SECRET, "session-2", "companion", NOW)
    await keep_nonce(a, "session-2", other, NOW)
    assert await spend_nonce(b, _join("session-1", other), NOW) is False
    late = issue_nonce(SECRET, "session-1", "companion", NOW)
    await keep_nonce(a, "session-1", late, NOW)
    assert await spend_nonce(b, _join("session-1", late), NOW + COMPANION_NONCE_MS + 1) is False


async def test_a_store_out_of_reach_refuses_the_join_without_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    gone = RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0", prefix="gone:")
    try:
        nonce = issue_nonce(SECRET, "session-1", "companion", NOW)
        assert await spend_nonce(gone, _join("session-1", nonce), NOW) is False
    finally:
        await gone.close()
    assert "companion nonce not readable" in caplog.text and "Traceback" not in caplog.text
