"""The /ws handshake: project, origin, join (PROTOCOL.md close codes; behaviour.md §5 origin rule)."""

from __future__ import annotations

from modalcore_testing import RunningServer, Client


def types(frames: list[dict[str, object]]) -> list[object]:
    return [frame["t"] for frame in frames]


async def test_join_gets_joined_theme_snapshot_and_host_events(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        frames = await client.join()
    assert types(frames)[:3] == ["joined", "theme", "snapshot"]
    assert set(types(frames)[3:]) == {"host_event"}
    joined, theme, snapshot = frames[:3]
    assert joined["resumed"] is False and joined["s"] == 0
    assert str(joined["resume"]).startswith(f"{joined['session']}.")
    assert theme["mode"] == "dark"
    assert snapshot["v"] == 1 and snapshot["tree"]["t"] == "modal"
    assert [f["s"] for f in frames[1:]] == list(range(1, len(frames)))
    assert {"state", "account", "network"} <= {f["kind"] for f in frames[3:]}


async def test_default_ancestor_origin_is_accepted(running_server: RunningServer) -> None:
    async with running_server.client(origin="http://localhost:5173") as client:
        assert types(await client.join())[0] == "joined"


async def test_forbidden_origin_is_refused_without_a_session(running_server: RunningServer) -> None:
    before = len(running_server.hub)
    for origin in ["https://evil.example.net", None, "null"]:
        async with running_server.client(origin=origin) as client:
            code = await client.closed()
        assert code == 4001
        assert client.frames == [{"t": "error", "s": 0, "a": 0, "code": "bad_origin",
                                  "message": "Invalid App Configuration"}]
    assert len(running_server.hub) == before


async def test_missing_or_unknown_project_is_refused(running_server: RunningServer) -> None:
    before = len(running_server.hub)
    for project in [None, "", "unknown"]:
        url = running_server.ws_url(project)
        async with Client.open(url) as client:
            code = await client.closed()
        assert code == 4002
        assert client.frames[0]["code"] == "no_project"
        assert client.frames[0]["message"] == "Project ID is not configured"
    assert len(running_server.hub) == before


async def test_join_must_come_first(running_server: RunningServer) -> None:
    before = len(running_server.hub)
    async with running_server.client() as client:
        await client.intent("host", "open")
        assert await client.closed() == 4003
    assert client.frames[0]["code"] == "not_joined"
    async with running_server.client() as client:
        await client.send_raw("hello")
        assert await client.closed() == 4003
    assert len(running_server.hub) == before


async def test_join_for_another_project_is_refused(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        frames = await client.join(project="other")
        assert await client.closed() == 4002
    assert frames[0]["code"] == "no_project"


async def test_invalid_options_get_goodbye(running_server: RunningServer) -> None:
    before = len(running_server.hub)
    async with running_server.client() as client:
        frames = await client.join(opts={"siweConfig": {}, "siwx": {}})
        await client.closed()
    assert frames == [{"t": "goodbye", "s": 0, "a": 0, "code": "invalid_options",
                       "message": "Cannot set both `siweConfig` and `siwx` options"}]
    async with running_server.client() as client:
        frames = await client.join(opts={"networks": ["nocolon"]})
    assert frames[0]["t"] == "goodbye" and frames[0]["code"] == "invalid_options"
    assert len(running_server.hub) == before


async def test_bad_resume_token_starts_a_new_session(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        frames = await client.join(resume="forged.99999999999.00", last=3)
    assert frames[0]["t"] == "joined" and frames[0]["resumed"] is False
    assert types(frames)[2] == "snapshot"


async def test_operator_features_override_the_hosts() -> None:
    from modalcore_testing import TEST_ORIGIN, make_test_config, start_server

    config = make_test_config(projects={"test": {"origins": [TEST_ORIGIN],
                                                 "features": {"swaps": False, "onramp": False}}})
    with start_server(config) as server:
        async with server.client() as client:
            frames = await client.join(opts={"networks": ["eip155:1"],
                                             "features": {"swaps": True, "email": False}})
            assert frames[0]["t"] == "joined"
            features = server.hub.runners[client.session].session.model.options.features
    assert (features.swaps, features.onramp, features.email) == (False, False, False)
