"""Continue on your phone and the session store (issue 44 item 1): while the QR code is on offer,
and after a phone claimed it, what the engine saves for the session (its bytes and its shared
blobs, as the store receives them) never holds the link's token. The store keeps the nonce the
token is derived from with the engine's secret, so the link cannot be rebuilt from the store."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx

from modalcore.engine.persist import blob_refs, load_bytes
from modalcore.store.memory import MemoryStore
from modalcore_testing import RunningServer, make_test_config, start_server

from ..embedded.device import DeviceKey, frame_headers
from .test_handoff_routes import OPTS, _claim, _link, _part

T = TypeVar("T")


def _on_loop(server: RunningServer, job: Coroutine[Any, Any, T]) -> T:
    assert server.hub.loop is not None
    return asyncio.run_coroutine_threadsafe(job, server.hub.loop).result(10)


def _saved(server: RunningServer, store: MemoryStore, session: str) -> tuple[bytes, list[bytes], str] | None:
    """The session's saved bytes, the shared blobs they refer to, and the handoff status they hold."""
    data = _on_loop(server, store.load(session, 0))
    if data is None:
        return None
    blobs = _on_loop(server, store.load_blobs(blob_refs(data), 0))
    restored, _ = load_bytes(data, blobs)
    return data, list(blobs.values()), restored.model.handoff.status


async def _saved_when(server: RunningServer, store: MemoryStore, session: str,
                      status: str) -> tuple[bytes, list[bytes]]:
    for _ in range(100):
        saved = await asyncio.to_thread(_saved, server, store, session)
        if saved is not None and saved[2] == status:
            return saved[0], saved[1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no save with the link {status}")


async def test_the_store_never_holds_the_links_token_while_on_offer_or_after_the_claim() -> None:
    store = MemoryStore()
    with start_server(make_test_config(), store=store) as server:
        async with server.client() as client, httpx.AsyncClient(base_url=server.http_url, timeout=10) as http:
            await client.join(opts=OPTS)
            link = await _link(client)
            token = _part(link).rsplit(".", 1)[1]
            assert len(token) == 32
            saves = [await _saved_when(server, store, client.session, "offered")]
            assert (await _claim(http, link, DeviceKey(), frame_headers(server.http_url))).status_code == 202
            await client.recv_until(lambda f: "Does your phone show this code?" in str(f))
            saves.append(await _saved_when(server, store, client.session, "confirm"))
    for data, blobs in saves:
        for saved in (data, *blobs):
            assert token.encode() not in saved
