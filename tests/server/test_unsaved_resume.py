"""Issue 27: a session whose newest state waits to be saved (the store is down) and which left
this worker's memory meanwhile is restored from that newest state when its visitor comes back,
not from the older one in the store."""

from __future__ import annotations

import asyncio
from modalcore_testing import Client, DownStore, make_test_config, start_server


async def test_rule_a_session_back_while_its_save_waits_gets_its_newest_state() -> None:
    store = DownStore()
    with start_server(make_test_config(store={"shutdown_wait_s": 0}), store=store) as server:
        async with server.client() as client:
            await client.join()
            await client.intent("host", "open", iid="open")
            await client.recv_until(lambda f: f["t"] == "intent_ack")
            await client.quiet(0.3)
            store.down = True
            await client.intent("host", "set_theme_mode", {"mode": "light"}, iid="theme")
            acks = await client.recv_until(lambda f: f["t"] == "intent_ack" and f["iid"] == "theme")
            assert acks[-1]["status"] == "ok"
            await client.quiet(0.3)
        runner = server.hub.runners[client.session]
        assert server.hub.loop is not None
        asyncio.run_coroutine_threadsafe(runner.stop(), server.hub.loop).result(10)  # out of memory
        assert client.session not in server.hub.runners
        async with Client.open(server.ws_url(), seq=client.seq) as again:
            frames = await again.join(resume=client.resume, last=0)
        assert frames[0]["resumed"] is True
        assert next(f for f in frames if f["t"] == "theme")["mode"] == "light"
        store.down = False
