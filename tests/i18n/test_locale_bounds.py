"""The locale inputs are bounded (PROTOCOL.md "Bounds"): `join.env.languages` (8 tags of 35
characters) and `opts.locale` (35 characters); a join over them is refused and keeps nothing."""

from __future__ import annotations

from modalcore.rules import limits as L
from modalcore_testing import RunningServer, running_server  # noqa: F401  (the fixture)

ENV = {"platform": "linux", "timezone": "UTC", "width": 1280}


async def test_languages_over_the_bound_refuse_the_join(running_server: RunningServer) -> None:  # noqa: F811
    before = len(running_server.hub)
    for languages in (["de"] * (L.MAX_ENV_LANGUAGES + 1), ["x" * (L.LOCALE_CHARS + 1)], [7]):
        async with running_server.client() as client:
            frames = await client.join(env={**ENV, "languages": languages})
            assert frames[0]["t"] == "error" and frames[0]["code"] == "not_joined", languages
            assert await client.closed() == 4003
    assert len(running_server.hub) == before


async def test_a_locale_over_the_bound_refuses_the_join(running_server: RunningServer) -> None:  # noqa: F811
    before = len(running_server.hub)
    async with running_server.client() as client:
        frames = await client.join(opts={"networks": ["eip155:1"], "locale": "d" * (L.LOCALE_CHARS + 1)})
        assert await client.closed() == 1008
    assert frames[0]["t"] == "goodbye" and frames[0]["code"] == "invalid_options"
    assert str(frames[0]["message"]).startswith("locale:")
    assert len(running_server.hub) == before


async def test_a_join_at_the_bounds_is_drawn_in_its_language(running_server: RunningServer) -> None:  # noqa: F811
    languages = ["x" * L.LOCALE_CHARS] * (L.MAX_ENV_LANGUAGES - 1) + ["ar-EG"]
    async with running_server.client() as client:
        frames = await client.join(env={**ENV, "languages": languages})
        snapshot = next(f for f in frames if f["t"] == "snapshot")
    assert snapshot["tree"]["p"]["lang"] == "ar" and snapshot["tree"]["p"]["dir"] == "rtl"
