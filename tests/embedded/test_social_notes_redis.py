"""Issue 42 item 2: a social sign-in begun on one host is finished on another. Two engines'
`SocialSignIns` (hosts A and B: one master key, one key database) share one Redis session
store started by the test: the popup begun on A is called back on B; the grant the callback
left on B is confirmed on A; each is taken once (the second refused, typed); an expired one is
refused; Redis holds neither the state, the PKCE verifier, the grant token nor who signed in;
a store that cannot be reached refuses, typed, with no traceback."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from modalcore.core.services import ServiceError
from modalcore.embedded.keys import KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.social import ProviderSetting, SocialFailure, SocialResult, SocialSignIns
from modalcore.embedded.social_notes import PENDING_TTL_MS, NotesUnavailable
from modalcore.store.memory import MemoryStore
from modalcore.store.notes import MemoryNotes
from modalcore.store.redis import RedisStore

from .test_oauth2_userinfo import CASES, NOW, Provider, _query

NAME, _, TOKEN_URL, USER_URL, USER, SUBJECT, _, _ = CASES[0]  # GitHub


@pytest.fixture
async def hosts(tmp_path: Path, redis_url: str) -> AsyncIterator[tuple[SocialSignIns, SocialSignIns, Provider, str]]:
    """(A, B, the provider both call, the stores' Redis prefix)."""
    provider = Provider(TOKEN_URL, USER_URL, USER)
    master, prefix = MasterKey.generate(), f"soc{secrets.token_hex(4)}:"
    stores = [RedisStore.from_url(redis_url, prefix=prefix) for _ in range(2)]
    engines = []
    for store in stores:
        signins = SocialSignIns({NAME: ProviderSetting(NAME, "", "client-1", "secret-1", kind="oauth2")},
                                "https://engine.test", KeyVault(tmp_path / "embedded.db", master), store=store)
        signins.http = httpx.AsyncClient(transport=httpx.MockTransport(provider))
        engines.append(signins)
    yield engines[0], engines[1], provider, prefix
    for signins, store in zip(engines, stores):
        assert signins.http is not None
        await signins.http.aclose()
        await store.close()


async def _stored(redis_url: str, prefix: str) -> list[tuple[bytes, bytes]]:
    """Every key under `prefix` with its value (strings only), as Redis holds them."""
    client = Redis.from_url(redis_url)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", _type="string")]
        return [(k, v) for k in keys if isinstance(v := await client.get(k), bytes)]
    finally:
        await client.aclose()


async def test_rule_a_sign_in_begun_on_one_host_is_called_back_on_another_once(
        hosts: tuple[SocialSignIns, SocialSignIns, Provider, str], redis_url: str) -> None:
    a, b, provider, prefix = hosts
    state = _query(await a.start(NAME, "s1", NOW, key="frame-key", bind="flow-value"))["state"]
    stored = await _stored(redis_url, prefix)
    assert len(stored) == 1 and all(state.encode() not in k + v for k, v in stored)
    result = await b.complete(NAME, {"code": "c", "state": state}, NOW + 1000)
    assert (result.session, result.subject, result.key, result.state) == ("s1", SUBJECT, "frame-key", state)
    assert result.bound_to("flow-value")
    verifier = parse_qs(provider.requests[0].content.decode())["code_verifier"][0]
    assert verifier and not any(verifier.encode() in v for _, v in stored)  # sealed, not in clear
    for host in (a, b):  # taken once: a replayed callback on either host is refused, typed
        with pytest.raises(SocialFailure, match=r"does not match a sign-in in progress"):
            await host.complete(NAME, {"code": "c", "state": state}, NOW + 2000)


async def test_rule_an_expired_pending_sign_in_is_refused_on_another_host(
        hosts: tuple[SocialSignIns, SocialSignIns, Provider, str]) -> None:
    a, b, _, _ = hosts
    state = _query(await a.start(NAME, "s1", NOW, key=""))["state"]
    with pytest.raises(SocialFailure, match=r"does not match a sign-in in progress"):
        await b.complete(NAME, {"code": "c", "state": state}, NOW + PENDING_TTL_MS)


def _result() -> SocialResult:
    return SocialResult("s1", NAME, SUBJECT, "0x" + "ab" * 20, "octo@example.com", "octocat", "frame-key", "st", "bd")


async def test_rule_a_grant_left_on_one_host_is_confirmed_on_another_once(
        hosts: tuple[SocialSignIns, SocialSignIns, Provider, str], redis_url: str) -> None:
    a, b, _, prefix = hosts
    token = secrets.token_urlsafe(32)
    await b.grant(_result(), token, NOW)
    stored = await _stored(redis_url, prefix)
    assert all(token.encode() not in k + v and b"octo@example.com" not in v for k, v in stored)
    grant = await a.granted(token, NOW + 1000)
    assert grant is not None and grant.result == _result() and grant.identity == f"{NAME}:{SUBJECT}"
    taken = await asyncio.gather(a.redeem(token, NOW + 1000), b.redeem(token, NOW + 1000))
    assert sorted(g is None for g in taken) == [False, True]  # two hosts racing: exactly one
    assert await a.granted(token, NOW + 1000) is None and await b.redeem(token, NOW + 1000) is None


async def test_rule_an_expired_grant_is_refused_on_every_host(
        hosts: tuple[SocialSignIns, SocialSignIns, Provider, str]) -> None:
    a, b, _, _ = hosts
    await a.grant(_result(), "token-1", NOW)
    assert await b.granted("token-1", NOW + PENDING_TTL_MS) is None
    assert await b.redeem("token-1", NOW + PENDING_TTL_MS) is None


class DownNotes(MemoryNotes):
    """Notes that cannot be reached (Redis down)."""

    async def note(self, kind: str, key: str, data: bytes, now_ms: int, ttl_ms: int, most: int) -> None:
        raise RedisConnectionError("Connection refused")

    async def noted(self, kind: str, key: str, now_ms: int) -> bytes | None:
        raise RedisConnectionError("Connection refused")

    async def take(self, kind: str, key: str, now_ms: int) -> bytes | None:
        raise RedisConnectionError("Connection refused")


def down_store() -> MemoryStore:
    """A session store whose notes cannot be reached (Redis down)."""
    store = MemoryStore()
    store.notes = DownNotes()
    return store


async def test_rule_a_store_outage_refuses_typed_without_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    signins = SocialSignIns({NAME: ProviderSetting(NAME, "", "client-1", "secret-1", kind="oauth2")},
                            "https://engine.test", KeyVault(tmp_path / "embedded.db", MasterKey.generate()),
                            store=down_store())
    with caplog.at_level("WARNING", logger="modalcore.embedded"):
        with pytest.raises(ServiceError):
            await signins.start(NAME, "s1", NOW, key="")
        with pytest.raises(SocialFailure):
            await signins.complete(NAME, {"code": "c", "state": "st"}, NOW)
        with pytest.raises(NotesUnavailable):
            await signins.grant(_result(), "token-1", NOW)
        assert await signins.granted("token-1", NOW) is None and await signins.redeem("token-1", NOW) is None
    assert caplog.records and all(r.exc_info is None for r in caplog.records)
