"""Issue 31, item 1: what the audit log and analytics record is what the visitor did. A page
reload, a reconnect of the same page and a takeover by another engine process resume the
session: the wallet is only asked eth_accounts/eth_chainId again and the visitor stays
connected, so none of them writes a disconnect or a second connect. Real sockets, the engine's
own stores (SQLite file, real redis-server)."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from modalcore.audit.verify import verify_store
from modalcore.server.stores import siwx_key_file
from modalcore.server.config import EngineConfig
from modalcore.siwx.backend.tokens import load_or_create_key
from modalcore.store.base import SessionStore
from modalcore.store.redis import RedisStore
from modalcore.store.sqlite import SqliteStore
from modalcore_testing import Client, make_test_config, start_server
from modalcore.wire.diff import apply

from ..devwallet import ADDRESS

WALLET = {"uuid": "uuid-load-1", "name": "Dev Wallet", "icon": "data:x",
          "rdns": "dev.modalcore.devwallet"}
WALLET_NODE = "connect/wallet/dev.modalcore.devwallet"
OPTS = {"networks": ["eip155:31337"], "metadata": {"name": "Audit dApp"}}
STEP_S = 30.0  # a loaded machine: generous, never asserted as a duration

_prefixes = itertools.count()
_iids = itertools.count(1)  # unique across page loads, as the renderer's are


def _find(tree: dict[str, Any] | None, node_id: str) -> dict[str, Any] | None:
    stack = [tree] if tree else []
    while stack:
        current = stack.pop()
        if current["id"] == node_id:
            return current
        stack.extend(current.get("c", ()))
    return None


class Page:
    """The renderer's part in Python: the tree, and a wallet answering eip1193 effects (and
    noting every method it was asked)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.tree: dict[str, Any] | None = None
        self.asked: list[str] = []
        self.host: dict[str, Any] = {}

    async def take(self, frame: dict[str, Any]) -> None:
        if frame["t"] == "snapshot":
            self.tree = frame["tree"]
        elif frame["t"] == "patch" and self.tree is not None:
            self.tree = apply(self.tree, frame["ops"])
        elif frame["t"] == "host_event":
            self.host[frame["kind"]] = frame["data"]
        elif frame["t"] == "effect" and frame["kind"] == "eip1193":
            method = frame["req"]["method"]
            self.asked.append(method)
            result: Any = {"eth_requestAccounts": [ADDRESS.lower()], "eth_accounts": [ADDRESS.lower()],
                           "eth_chainId": "0x7a69"}.get(method)
            if result is None:
                await self.client.send({"t": "effect_result", "eid": frame["eid"], "ok": False,
                                        "error": {"code": 4200, "message": "unsupported"}})
            else:
                await self.client.send({"t": "effect_result", "eid": frame["eid"], "ok": True,
                                        "result": result})

    async def join(self, **fields: Any) -> None:
        for frame in await self.client.join(**fields):
            await self.take(frame)

    async def until(self, done: Callable[[Page], bool]) -> None:
        deadline = time.monotonic() + STEP_S
        while not done(self):
            try:
                frame = await self.client.recv(max(0.1, deadline - time.monotonic()))
            except TimeoutError as error:
                raise AssertionError(f"not reached; host state {self.host}") from error
            await self.take(frame)

    async def settle(self) -> None:
        for frame in await self.client.quiet(0.5):
            await self.take(frame)

    async def intent(self, node_id: str, act: str = "press") -> None:
        await self.client.intent(node_id, act, iid=f"page-{next(_iids)}")

    async def press(self, node_id: str) -> None:
        await self.until(lambda page: _find(page.tree, node_id) is not None)
        await self.intent(node_id)

    def connected(self) -> bool:
        return self.host.get("account", {}).get("isConnected") is True


async def connect(page: Page) -> None:
    await page.join(wallets=[WALLET], opts=OPTS)
    await page.intent("host", "open")
    await page.press(WALLET_NODE)
    await page.until(Page.connected)
    await page.settle()


async def reload(url: str, before: Client, uuid: str = "uuid-load-2") -> Page:
    """The page loads again: a new socket, the resume token, no `last`, the wallet announced
    with this page load's own EIP-6963 uuid."""
    async with Client.open(url, seq=before.seq) as client:
        page = Page(client)
        await page.join(resume=before.resume, wallets=[{**WALLET, "uuid": uuid}], opts=OPTS)
        await page.until(Page.connected)
        await page.settle()
        return page


def config(tmp_path: Path, store: dict[str, Any]) -> EngineConfig:
    return make_test_config(store=store, analytics={"mode": "local"},
                            siwx={"db": ":memory:", "key_file": str(tmp_path / "engine.key")})


def sqlite_config(tmp_path: Path) -> EngineConfig:
    return config(tmp_path, {"kind": "sqlite", "path": str(tmp_path / "sessions.db")})


def redis_config(tmp_path: Path, redis_url: str) -> EngineConfig:
    return config(tmp_path, {"kind": "redis", "url": redis_url, "prefix": f"resumed{next(_prefixes)}:"})


def open_store(config: EngineConfig) -> SessionStore:
    if config.store.kind == "redis":
        return RedisStore.from_url(config.store.url, prefix=config.store.prefix)
    return SqliteStore(config.store.path)


def recorded(config: EngineConfig, session: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The session's audit entries and the analytics counts, read from the store once the
    engines stopped (which signed the log's heads: it verifies, anchored)."""
    async def read() -> tuple[list[dict[str, Any]], dict[str, int]]:
        store = open_store(config)
        try:
            verdict = await verify_store(store, load_or_create_key(siwx_key_file(config)).address)
            assert verdict.findings == [] and verdict.unanchored_sessions == 0
            assert verdict.unsigned_entries == 0 and verdict.anchored_sessions >= 1
            entries = [json.loads(e.body) for e in await store.audit.entries(session)]
            counts: dict[str, int] = {}
            for _, _, event, count in await store.analytics.counts():
                counts[event] = counts.get(event, 0) + count
            return entries, counts
        finally:
            await store.close()
    return asyncio.run(read())


def assert_one_connect(entries: list[dict[str, Any]], counts: dict[str, int]) -> None:
    assert [e["kind"] for e in entries] == ["connect"]
    assert entries[0]["data"]["connector"] == "dev.modalcore.devwallet"
    assert counts.get("CONNECT_SUCCESS") == 1
    assert "DISCONNECT_SUCCESS" not in counts


async def _reload_on_one_engine(config: EngineConfig) -> str:
    with start_server(config) as server:
        async with server.client() as first:
            await connect(Page(first))
        page = await reload(server.ws_url(), first)
        assert page.asked == ["eth_accounts", "eth_chainId"]  # no prompt: a re-sync
        return first.session


def test_rule_a_reload_is_no_disconnect_and_no_second_connect_with_sqlite(tmp_path: Path) -> None:
    settings = sqlite_config(tmp_path)
    session = asyncio.run(_reload_on_one_engine(settings))
    assert_one_connect(*recorded(settings, session))


def test_rule_a_reload_is_no_disconnect_and_no_second_connect_with_redis(
        tmp_path: Path, redis_url: str) -> None:
    settings = redis_config(tmp_path, redis_url)
    session = asyncio.run(_reload_on_one_engine(settings))
    assert_one_connect(*recorded(settings, session))


def test_rule_a_reconnect_of_the_same_page_records_nothing(tmp_path: Path) -> None:
    settings = sqlite_config(tmp_path)

    async def run() -> str:
        with start_server(settings) as server:
            async with server.client() as first:
                page = Page(first)
                await connect(page)
            async with Client.open(server.ws_url(), seq=first.seq) as again:
                back = Page(again)
                back.tree = page.tree
                await back.join(resume=first.resume, last=first.last, wallets=[WALLET])
                await back.settle()
                assert back.asked == []  # the same page: nothing to ask the wallet
            return first.session

    session = asyncio.run(run())
    assert_one_connect(*recorded(settings, session))


def test_rule_a_takeover_by_another_engine_process_records_nothing_and_the_chain_goes_on(
        tmp_path: Path, redis_url: str) -> None:
    """Connect on A, reload onto B (a takeover), disconnect there, then back on A connect again:
    one connect per connect the visitor made, and A (whose copy of the chain's head is stale)
    continues the chain after B's entry instead of failing on it."""
    settings = redis_config(tmp_path, redis_url)

    async def run() -> str:
        with start_server(settings) as a, start_server(settings) as b:
            async with a.client() as first:
                await connect(Page(first))
            on_b = await reload(b.ws_url(), first)
            assert on_b.asked == ["eth_accounts", "eth_chainId"]
            async with Client.open(b.ws_url(), seq=on_b.client.seq) as client:
                page = Page(client)
                await page.join(resume=on_b.client.resume, wallets=[WALLET], opts=OPTS)
                await page.until(Page.connected)
                await page.intent("host", "open")
                await page.press("account/disconnect")
                await page.until(lambda p: p.host.get("account", {}).get("isConnected") is False)
                await page.settle()
                resume, seq = client.resume, client.seq
            async with Client.open(a.ws_url(), seq=seq) as client:
                page = Page(client)
                await page.join(resume=resume, wallets=[WALLET], opts=OPTS)
                await page.intent("host", "open")
                await page.press(WALLET_NODE)
                await page.until(Page.connected)
                await page.settle()
            return first.session

    session = asyncio.run(run())
    entries, counts = recorded(settings, session)
    assert [e["kind"] for e in entries] == ["connect", "disconnect", "connect"]
    assert [e["seq"] for e in entries] == [1, 2, 3]
    assert entries[2]["prev"] != entries[1]["prev"]
    assert counts.get("CONNECT_SUCCESS") == 2 and counts.get("DISCONNECT_SUCCESS") == 1
