"""Intents over a real socket: acks, patches, duplicates, invalid targets, the rate limit."""

from __future__ import annotations

from modalcore_testing import RunningServer


async def test_open_is_acked_and_patched(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        await client.join()
        welcome_last = client.last
        await client.intent("host", "open", iid="open-1")
        frames = await client.recv_until(lambda f: f["t"] == "patch")
        assert frames[0] == {"t": "intent_ack", "s": welcome_last + 1, "a": 2, "iid": "open-1",
                             "status": "ok"}
        assert frames[1]["ops"] == [[3, "modal", {"open": True}]]
        assert (frames[1]["base"], frames[1]["v"]) == (1, 2)
        event = await client.recv()
        assert event["t"] == "host_event" and event["data"]["open"] is True


async def test_duplicate_intent_is_applied_once(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        await client.join()
        await client.intent("header/close", "press", iid="dup")  # modal closed: close is a no-op
        await client.intent("host", "open", iid="dup-open")
        first = await client.recv_until(lambda f: f["t"] == "host_event")
        assert [f["t"] for f in first if f["t"] == "patch"] == ["patch"]
        await client.quiet(0.3)  # the Connect view's directory wallets arrive in a later patch
        # the same iid again (a retransmission after a reconnect): ack only, no second patch
        await client.intent("host", "open", iid="dup-open")
        again = await client.quiet(0.3)
        assert [f["t"] for f in again] == ["intent_ack"]
        assert again[0]["iid"] == "dup-open" and again[0]["status"] == "ok"


async def test_unknown_node_or_action_is_invalid(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        await client.join()
        await client.intent("no/such/node", "press", iid="bad-node")
        await client.intent("modal", "toggle", {"checked": True}, iid="bad-act")
        await client.intent("host", "fly", iid="bad-host-act")
        await client.intent("host", "open", {"view": 5}, iid="bad-args")
        frames = await client.quiet(0.4)
        assert [f["t"] for f in frames] == ["intent_ack"] * 4
        assert [f["status"] for f in frames] == ["invalid"] * 4
        assert all(f.get("error") for f in frames)
        # nothing changed: the next valid intent patches from version 1
        await client.intent("host", "open")
        patch = (await client.recv_until(lambda f: f["t"] == "patch"))[-1]
        assert patch["base"] == 1


async def test_burst_beyond_30_intents_is_rate_limited(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        await client.join()
        for n in range(40):
            await client.intent("host", "set_theme_mode", {"mode": "light" if n % 2 else "dark"},
                                iid=f"burst-{n}")
        acks: list[dict[str, object]] = []
        while len(acks) < 40:
            frame = await client.recv()
            if frame["t"] == "intent_ack":
                acks.append(frame)
        statuses = [ack["status"] for ack in acks]
        assert statuses[:30] == ["ok"] * 30
        assert "rate_limited" in statuses[30:]
