"""Bounded state over a real socket (PROTOCOL.md "Bounds"): a client cannot grow its session
past the bounds; what goes over is refused with a typed reply and changes nothing."""

from __future__ import annotations

from modalcore.rules import limits as L
from modalcore_testing import RunningServer
from modalcore.wire.codec import encode
from modalcore.slices.connectors import announced


def fresh_keys(call: int, count: int) -> dict[str, str]:
    return {f"--w3m-k{call}-{n}": f"#{n:06x}" for n in range(count)}


async def test_theme_variables_stay_bounded_over_the_socket(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        await client.join()
        calls = 30  # the intent rate limit's burst: only the bound refuses here
        for call in range(calls):
            await client.intent("host", "set_theme_variables", {"variables": fresh_keys(call, L.MAX_THEME_VARIABLES)},
                                iid=f"theme-{call}")
        frames: list[dict[str, object]] = []
        while len([f for f in frames if f["t"] == "intent_ack"]) < calls:
            frames.append(await client.recv())
        frames += await client.quiet(0.3)
        acks = [f for f in frames if f["t"] == "intent_ack"]
        assert [a["status"] for a in acks] == ["ok"] + ["invalid"] * (calls - 1)
        assert all(f"at most {L.MAX_THEME_VARIABLES}" in str(a["error"]) for a in acks[1:])
        themes = [f for f in frames if f["t"] == "theme"]
        assert len(themes) == 1  # the refused calls sent no theme frame
        variables = themes[0]["vars"]
        assert isinstance(variables, dict)
        assert len([k for k in variables if k.startswith("--w3m-k")]) == L.MAX_THEME_VARIABLES
        assert len(encode(themes[0])) < 20_000
        session = running_server.hub.runners[client.session].session
        assert len(session.model.theme.variables) == L.MAX_THEME_VARIABLES
        # nothing else changed: the next intent patches the tree the client holds
        version = session.version
        await client.intent("host", "open")
        patch = (await client.recv_until(lambda f: f["t"] == "patch"))[-1]
        assert patch["base"] == version


async def test_host_options_over_a_bound_refuse_the_join(running_server: RunningServer) -> None:
    before = len(running_server.hub)
    icons = [f"https://example.com/{n}.png" for n in range(L.MAX_METADATA_ICONS + 1)]
    async with running_server.client() as client:
        frames = await client.join(opts={"networks": ["eip155:1"], "metadata": {"name": "x", "icons": icons}})
        assert await client.closed() == 1008
    assert frames[0]["t"] == "goodbye" and frames[0]["code"] == "invalid_options"
    assert str(frames[0]["message"]).startswith("metadata.icons:")
    assert len(running_server.hub) == before


async def test_announcements_past_the_bound_get_over_limit(running_server: RunningServer) -> None:
    wallets = [{"uuid": f"u{n}", "name": f"W{n}", "icon": "", "rdns": f"com.example.w{n}"}
               for n in range(L.MAX_ANNOUNCED_WALLETS)]
    async with running_server.client() as client:
        await client.join(wallets=wallets)
        await client.send({"t": "wallet_event", "connector": "u99", "event": "announce",
                           "data": {"uuid": "u99", "name": "One too many", "icon": "", "rdns": "com.example.w99"}})
        frames = await client.quiet(0.5)
        assert [(f["t"], f.get("code")) for f in frames] == [("error", "over_limit")]
        session = running_server.hub.runners[client.session].session
        assert len(announced(session.model.connectors)) == L.MAX_ANNOUNCED_WALLETS  # WalletConnect is the engine's
