"""Issue 42 item 2: a Farcaster channel opened on one host is answered and signed in with on
another. Two engines' `FarcasterSignIns` (hosts A and B: one key vault, one relay) share one
Redis session store started by the test: what a channel was opened for (a frame's key, a sign-in
binding) is taken by the host that sees the answer, once; the verified answer (`Approval`) signs
in once on whichever host asks; an expired channel registers nothing, a stale approval signs
nothing; a refusal is a ServiceError (typed, one log line, no traceback)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.core.services import ServiceError
from modalcore.embedded.keys import Identity, KeyVault
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.signer import sign_text
from modalcore.farcaster.one_approval import APPROVAL_TTL_MS, SignInBinding
from modalcore.farcaster.service import FarcasterSignIns
from modalcore.siwx.domain.message import SiwxMessage
from modalcore.store.redis import RedisStore
from modalcore_dev.farcaster.democlient import DEV_FIDS

from ..embedded.test_social_notes_redis import down_store
from .test_service import NOW, SETTING, World

DOMAIN, URI, SESSION = "localhost:8000", "http://localhost:8000", "session-1"
CAROL = DEV_FIDS[1]
Hosts = tuple[FarcasterSignIns, FarcasterSignIns, World, list[tuple[str, str, int]]]


@pytest.fixture
async def hosts(tmp_path: Path, redis_url: str) -> AsyncIterator[Hosts]:
    """(A, B, the relay and registry both call, the keys registered by either)."""
    world, registered = World(), []
    vault = KeyVault(tmp_path / "embedded.db", MasterKey.generate())
    prefix = f"fc{secrets.token_hex(4)}:"
    stores = [RedisStore.from_url(redis_url, prefix=prefix) for _ in range(2)]
    engines = []
    for store in stores:
        signins = FarcasterSignIns(
            SETTING, lambda fid, now: vault.get_or_create(Identity("farcaster", fid), now),
            register_key=lambda identity, key, now: registered.append((identity, key, now)),
            sign_text=lambda fid, text: sign_text(vault, Identity("farcaster", fid), text), store=store)
        signins.http = world.signins.http
        engines.append(signins)
    yield engines[0], engines[1], world, registered
    assert world.signins.http is not None
    await world.signins.http.aclose()
    for store in stores:
        await store.close()


async def test_rule_a_channel_opened_on_one_host_registers_its_key_once_on_another(hosts: Hosts) -> None:
    a, b, world, registered = hosts
    opened = await a.open_channel(NOW, key="frame-key")
    world.answer(opened["url"], dev=CAROL)
    verdict = await b.status(opened["channel_token"], opened["nonce"], NOW + 1000)
    assert verdict["state"] == "verified" and registered == [("farcaster:2", "frame-key", NOW + 1000)]
    for host in (a, b):  # polled again on either host: the channel's key was taken, once
        await host.status(opened["channel_token"], opened["nonce"], NOW + 2000)
    assert registered == [("farcaster:2", "frame-key", NOW + 1000)]


async def test_rule_an_expired_channel_registers_nothing_on_another_host(hosts: Hosts) -> None:
    a, b, world, registered = hosts
    opened = await a.open_channel(NOW, key="frame-key")
    world.answer(opened["url"], dev=CAROL)
    await b.status(opened["channel_token"], opened["nonce"], NOW + SETTING.channel_ttl_ms)
    assert registered == []


def _message(address: str, nonce: str, now: int) -> str:
    return SiwxMessage.create(domain=DOMAIN, address=address, uri=URI, chain_id=1, nonce=nonce,
                              now_ms=now, ttl_ms=86_400_000).to_text()


async def _approved(a: FarcasterSignIns, b: FarcasterSignIns, world: World) -> tuple[str, str, str]:
    """A sign-in's channel opened on A, answered, verified on B: (token, nonce, FID's address)."""
    bound = SignInBinding(SESSION, DOMAIN, URI, "cafe" * 8)
    opened = await a.open_channel(NOW, binding=bound)
    world.answer(opened["url"], dev=CAROL)
    verdict = await b.status(opened["channel_token"], "ignored: the binding's nonce is", NOW)
    assert verdict["state"] == "verified"
    return opened["channel_token"], bound.nonce, str(verdict["address"])


def _said(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the Farcaster service logged. caplog holds every logger's records at the levels set:
    after a test in the same worker set the root logger to INFO, the embedded wallet's "created"
    line landed here too."""
    return [r.getMessage() for r in caplog.records if r.name.startswith("modalcore.farcaster")]


async def test_rule_an_approval_verified_on_one_host_signs_in_once_on_another(
        hosts: Hosts, caplog: pytest.LogCaptureFixture) -> None:
    a, b, world, _ = hosts
    token, nonce, address = await _approved(a, b, world)
    text = _message(address, nonce, NOW)
    ctx: Any = object()
    signed = await a.sign_in(ctx, SESSION, token, text, NOW + 1000)
    assert Account.recover_message(encode_defunct(text=text), signature=signed["signature"]) == address
    for host in (a, b):  # once, whichever host is asked again
        with caplog.at_level("WARNING", logger="modalcore.farcaster"), pytest.raises(ServiceError):
            await host.sign_in(ctx, SESSION, token, text, NOW + 1000)
    assert _said(caplog) == ["farcaster sign-in not signed at once: no_approval"] * 2
    assert all(r.exc_info is None for r in caplog.records)


async def test_rule_a_stale_approval_signs_nothing_on_another_host(hosts: Hosts) -> None:
    a, b, world, _ = hosts
    token, nonce, address = await _approved(a, b, world)
    later = NOW + APPROVAL_TTL_MS + 1
    with pytest.raises(ServiceError):
        await a.sign_in(object(), SESSION, token, _message(address, nonce, later), later)


async def test_rule_a_store_outage_is_a_service_error_without_a_traceback(
        hosts: Hosts, caplog: pytest.LogCaptureFixture) -> None:
    a, b, world, _ = hosts
    token, nonce, address = await _approved(a, b, world)
    a.store = down_store()
    with caplog.at_level("WARNING", logger="modalcore.farcaster"):
        with pytest.raises(ServiceError):
            await a.open_channel(NOW, key="frame-key")
        with pytest.raises(ServiceError):
            await a.sign_in(object(), SESSION, token, _message(address, nonce, NOW), NOW)
    assert _said(caplog) == ["farcaster channel store failed: ConnectionError"] * 2
    assert all(r.exc_info is None for r in caplog.records)
    signed = await b.sign_in(object(), SESSION, token, _message(address, nonce, NOW), NOW)  # kept for B
    assert signed["signature"]
