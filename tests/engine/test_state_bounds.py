"""Bounded state (PROTOCOL.md "Bounds", rules/limits.py): what a client or a host page feeds in
is bounded in total, not only per frame; input over a bound is refused with a typed error and
leaves the model and the tree exactly as they were."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from modalcore.slices.model import Model
from modalcore.enginetest import METAMASK, Harness
from modalcore.rules import limits as L
from modalcore.wire.codec import encode
from modalcore.wire.frames import FrameError, parse_client_frame
from modalcore.wire.nodes import Node
from modalcore.wire.serverframes import IntentAck

Make = Callable[..., Harness]


def snapshot(h: Harness) -> tuple[Model, Node, int]:
    return h.model, h.tree, h.session.version


def assert_unchanged(h: Harness, before: tuple[Model, Node, int]) -> None:
    model, tree, version = before
    assert h.model == model
    assert h.tree == tree
    assert h.session.version == version


def fresh_keys(call: int, count: int) -> dict[str, str]:
    return {f"--w3m-k{call}-{n}": f"#{n:06x}" for n in range(count)}


def set_variables(h: Harness, variables: dict[str, Any]) -> str:
    h.now += 100  # well under the intent rate limit: only the bounds refuse
    return h.host("set_theme_variables", variables=variables)


# ----- theme variables


def test_theme_variables_stay_bounded_in_total_over_400_calls(h: Harness) -> None:
    statuses = [set_variables(h, fresh_keys(call, L.MAX_THEME_VARIABLES)) for call in range(400)]
    assert statuses[0] == "ok"
    assert statuses[1:] == ["invalid"] * 399  # each would take the session past the bound
    assert len(h.model.theme.variables) == L.MAX_THEME_VARIABLES
    overrides = [key for key in h.theme()["vars"] if key.startswith("--w3m-k")]
    assert len(overrides) == L.MAX_THEME_VARIABLES
    assert len(encode(h.theme())) < 20_000
    from modalcore.engine.persist import session_to_bytes

    assert len(session_to_bytes(h.session)) < 64 * 1024  # what the store saves, and a resume restores


def test_theme_variables_over_the_total_are_refused_and_change_nothing(h: Harness) -> None:
    assert set_variables(h, fresh_keys(0, L.MAX_THEME_VARIABLES - 1)) == "ok"
    before = snapshot(h)
    assert set_variables(h, fresh_keys(1, 2)) == "invalid"
    ack = h.last[0]
    assert ack["t"] == "intent_ack" and ack["status"] == "invalid"
    assert f"at most {L.MAX_THEME_VARIABLES}" in ack["error"]
    assert [f["t"] for f in h.last] == ["intent_ack"]  # no theme frame, no patch
    assert_unchanged(h, before)
    # up to the bound is accepted, and names already set can always be set again
    assert set_variables(h, fresh_keys(1, 1)) == "ok"
    assert set_variables(h, {"--w3m-k0-0": "#123456", "--w3m-k1-0": "#654321"}) == "ok"
    assert h.theme()["vars"]["--w3m-k0-0"] == "#123456"


def test_theme_variables_more_than_the_bound_in_one_call_are_refused(h: Harness) -> None:
    before = snapshot(h)
    assert set_variables(h, fresh_keys(0, L.MAX_THEME_VARIABLES + 1)) == "invalid"
    assert_unchanged(h, before)


@pytest.mark.parametrize("variables", [
    {"--w3m-" + "x" * L.THEME_KEY_CHARS: "1"},
    {"--w3m-accent": "x" * (L.THEME_VALUE_CHARS + 1)},
], ids=["long-name", "long-value"])
def test_theme_variable_names_and_values_over_their_length_are_refused(
        h: Harness, variables: dict[str, str]) -> None:
    before = snapshot(h)
    assert set_variables(h, {**variables, "--w3m-z-index": "5"}) == "invalid"
    assert_unchanged(h, before)  # refused whole: not even the valid variable applies


def test_theme_variables_from_join_are_bounded(make: Make) -> None:
    with pytest.raises(ValueError, match="themeVariables"):
        make(options={"networks": ["eip155:1"], "themeVariables": fresh_keys(0, L.MAX_THEME_VARIABLES + 1)})
    h = make(options={"networks": ["eip155:1"], "themeVariables": fresh_keys(0, L.MAX_THEME_VARIABLES)})
    assert len(h.model.theme.variables) == L.MAX_THEME_VARIABLES


# ----- announced wallets


def announcement(n: int, **fields: Any) -> dict[str, Any]:
    return {"uuid": f"uuid-{n}", "name": f"Wallet {n}", "icon": "", "rdns": f"com.example.w{n}", **fields}


def test_announced_wallets_accumulate_up_to_the_bound_then_are_refused(h: Harness) -> None:
    for n in range(1, L.MAX_ANNOUNCED_WALLETS):  # the harness joined with MetaMask
        frames = h.wallet_event(f"uuid-{n}", "announce", announcement(n))
        assert "error" not in [f["t"] for f in frames]
    assert len(h.model.connectors.items) == L.MAX_ANNOUNCED_WALLETS
    before = snapshot(h)
    for n in range(L.MAX_ANNOUNCED_WALLETS, L.MAX_ANNOUNCED_WALLETS + 50):
        frames = h.wallet_event(f"uuid-{n}", "announce", announcement(n))
        assert [(f["t"], f["code"]) for f in frames] == [("error", "over_limit")]
        assert f"at most {L.MAX_ANNOUNCED_WALLETS}" in frames[0]["message"]
    assert_unchanged(h, before)
    # a wallet already known announces itself again (a new page load's uuid): still accepted
    frames = h.wallet_event("mm-uuid-2", "announce", {**METAMASK, "uuid": "mm-uuid-2"})
    assert "error" not in [f["t"] for f in frames]
    assert h.model.connectors.get("io.metamask") is not None
    assert h.model.connectors.get("io.metamask").ref == "mm-uuid-2"  # type: ignore[union-attr]


def test_announced_icons_are_bounded_in_total(h: Harness) -> None:
    icon = "data:image/png;base64," + "A" * (L.WALLET_ICON_CHARS - 22)
    fit = (L.MAX_ANNOUNCED_ICON_CHARS - len(METAMASK["icon"])) // len(icon)
    for n in range(fit):
        frames = h.wallet_event(f"uuid-{n}", "announce", announcement(n, icon=icon))
        assert "error" not in [f["t"] for f in frames]
    before = snapshot(h)
    frames = h.wallet_event("uuid-99", "announce", announcement(99, icon=icon))
    assert [(f["t"], f["code"]) for f in frames] == [("error", "over_limit")]
    assert_unchanged(h, before)
    # a wallet already known may change its icon within the budget (here: a smaller one)
    frames = h.wallet_event("uuid-0", "announce", announcement(0, icon="data:image/svg+xml,x"))
    assert "error" not in [f["t"] for f in frames]
    assert len(h.model.connectors.items) == fit + 1


@pytest.mark.parametrize("fields", [
    {"icon": "data:image/svg+xml," + "x" * L.WALLET_ICON_CHARS},
    {"name": "n" * (L.WALLET_NAME_CHARS + 1)},
    {"rdns": "r" * (L.WALLET_RDNS_CHARS + 1)},
    {"uuid": "u" * (L.WALLET_UUID_CHARS + 1)},
], ids=["icon", "name", "rdns", "uuid"])
def test_an_announcement_over_its_field_lengths_is_refused(h: Harness, fields: dict[str, str]) -> None:
    before = snapshot(h)
    frames = h.wallet_event("uuid-9", "announce", announcement(9, **fields))
    assert [(f["t"], f["code"]) for f in frames] == [("error", "malformed")]
    assert frames[0]["message"].startswith("announce: ")
    assert_unchanged(h, before)


def join_frame(wallets: int) -> bytes:
    return encode({"t": "join", "s": 1, "a": 0, "project": "p", "env": {}, "opts": {},
                   "wallets": [announcement(n) for n in range(wallets)]})


def test_a_join_announcing_more_wallets_than_the_bound_is_refused() -> None:
    assert len(parse_client_frame(join_frame(L.MAX_ANNOUNCED_WALLETS)).wallets) == L.MAX_ANNOUNCED_WALLETS  # type: ignore[union-attr]
    with pytest.raises(FrameError, match="wallets"):
        parse_client_frame(join_frame(L.MAX_ANNOUNCED_WALLETS + 1))


# ----- what a wallet says


@pytest.mark.parametrize(("event", "data"), [
    ("accountsChanged", ["0x" + "1" * 40] * (L.MAX_WALLET_ACCOUNTS + 1)),
    ("accountsChanged", ["0x" + "1" * L.WALLET_ACCOUNT_CHARS]),
    ("accountsChanged", "0x1"),
    ("chainChanged", "0x" + "1" * L.WALLET_CHAIN_CHARS),
    ("chainChanged", 2**200),
], ids=["too-many-accounts", "long-account", "not-a-list", "long-chain", "huge-chain"])
def test_wallet_events_over_their_bounds_get_a_typed_error(h: Harness, event: str, data: Any) -> None:
    before = snapshot(h)
    frames = h.wallet_event("mm-uuid", event, data)
    assert [(f["t"], f["code"]) for f in frames] == [("error", "malformed")]
    assert frames[0]["message"].startswith(event)
    assert_unchanged(h, before)


# ----- host options (join.opts)


def icons(n: int) -> list[str]:
    return [f"https://example.com/{i}.png" for i in range(n)]


def ids(n: int) -> list[str]:
    return [f"wallet-{i}" for i in range(n)]


def custom(n: int) -> list[dict[str, str]]:
    return [{"id": f"c{i}", "name": f"Custom {i}"} for i in range(n)]


# (where the error points, options at the bound, options one past it)
OPTION_BOUNDS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("networks", {"networks": ["eip155:1"] * L.MAX_NETWORKS}, {"networks": ["eip155:1"] * (L.MAX_NETWORKS + 1)}),
    ("defaultNetwork", {"defaultNetwork": "eip155:" + "1" * 9},
     {"defaultNetwork": "x" * (L.NETWORK_ID_CHARS + 1)}),
    ("metadata.icons", {"metadata": {"icons": icons(L.MAX_METADATA_ICONS)}},
     {"metadata": {"icons": icons(L.MAX_METADATA_ICONS + 1)}}),
    ("metadata.icons.0", {"metadata": {"icons": ["i" * L.ICON_URL_CHARS]}},
     {"metadata": {"icons": ["i" * (L.ICON_URL_CHARS + 1)]}}),
    ("metadata.name", {"metadata": {"name": "n" * L.METADATA_NAME_CHARS}},
     {"metadata": {"name": "n" * (L.METADATA_NAME_CHARS + 1)}}),
    ("metadata.description", {"metadata": {"description": "d" * L.METADATA_DESCRIPTION_CHARS}},
     {"metadata": {"description": "d" * (L.METADATA_DESCRIPTION_CHARS + 1)}}),
    ("metadata.url", {"metadata": {"url": "u" * L.METADATA_URL_CHARS}},
     {"metadata": {"url": "u" * (L.METADATA_URL_CHARS + 1)}}),
    ("featuredWalletIds", {"featuredWalletIds": ids(L.MAX_WALLET_IDS)},
     {"featuredWalletIds": ids(L.MAX_WALLET_IDS + 1)}),
    ("includeWalletIds", {"includeWalletIds": ids(L.MAX_WALLET_IDS)},
     {"includeWalletIds": ids(L.MAX_WALLET_IDS + 1)}),
    ("excludeWalletIds", {"excludeWalletIds": ids(L.MAX_WALLET_IDS)},
     {"excludeWalletIds": ids(L.MAX_WALLET_IDS + 1)}),
    ("excludeWalletIds.0", {"excludeWalletIds": ["w" * L.WALLET_ID_CHARS]},
     {"excludeWalletIds": ["w" * (L.WALLET_ID_CHARS + 1)]}),
    ("customWallets", {"customWallets": custom(L.MAX_CUSTOM_WALLETS)},
     {"customWallets": custom(L.MAX_CUSTOM_WALLETS + 1)}),
    ("customWallets.0.webapp_link",
     {"customWallets": [{"id": "c", "name": "C", "webapp_link": "https://" + "l" * (L.WALLET_LINK_CHARS - 8)}]},
     {"customWallets": [{"id": "c", "name": "C", "webapp_link": "https://" + "l" * L.WALLET_LINK_CHARS}]}),
    ("features.socials", {"features": {"socials": ["google"] * L.MAX_SOCIALS}},
     {"features": {"socials": ["google"] * (L.MAX_SOCIALS + 1)}}),
    ("features.connectMethodsOrder", {"features": {"connectMethodsOrder": ["wallet", "email", "social"]}},
     {"features": {"connectMethodsOrder": ["wallet"] * (L.MAX_CONNECT_METHODS + 1)}}),
    ("siwx.statement", {"siwx": {"statement": "s" * L.SIWX_STATEMENT_CHARS}},
     {"siwx": {"statement": "s" * (L.SIWX_STATEMENT_CHARS + 1)}}),
    ("siwx.resources", {"siwx": {"resources": [f"urn:r:{i}" for i in range(L.MAX_SIWX_RESOURCES)]}},
     {"siwx": {"resources": [f"urn:r:{i}" for i in range(L.MAX_SIWX_RESOURCES + 1)]}}),
    ("siwx.resources.0", {"siwx": {"resources": ["r" * L.SIWX_RESOURCE_CHARS]}},
     {"siwx": {"resources": ["r" * (L.SIWX_RESOURCE_CHARS + 1)]}}),
    ("themeVariables", {"themeVariables": fresh_keys(0, L.MAX_THEME_VARIABLES)},
     {"themeVariables": fresh_keys(0, L.MAX_THEME_VARIABLES + 1)}),
]


@pytest.mark.parametrize(("where", "at_bound", "over"), OPTION_BOUNDS, ids=[b[0] for b in OPTION_BOUNDS])
def test_host_options_over_a_bound_refuse_the_join(where: str, at_bound: dict[str, Any],
                                                   over: dict[str, Any]) -> None:
    from modalcore.slices.options import OptionsError, parse_options

    parse_options({"networks": ["eip155:1"], **at_bound})
    with pytest.raises(OptionsError) as refused:
        parse_options({"networks": ["eip155:1"], **over})
    assert str(refused.value).startswith(where + ":") or str(refused.value).startswith(where + ".")


# ----- the origin a session keeps


def test_an_origin_longer_than_the_bound_is_not_allowed() -> None:
    from modalcore.server.origins import OriginPolicy

    policy = OriginPolicy(["https://*.example.com"], include_defaults=False)
    assert policy.allows("https://app.example.com")
    assert not policy.allows("https://" + "b" * L.ORIGIN_CHARS + ".example.com")


# ----- the frames a session keeps for a reconnect


def test_the_frame_ring_is_bounded_in_bytes_for_a_client_that_never_acknowledges(h: Harness) -> None:
    from modalcore.wire.frames import Intent

    session = h.session
    for n in range(300):  # theme frames of ~9 KB each; the client acknowledges nothing
        value = f"{n:04d}" + "x" * (L.THEME_VALUE_CHARS - 4)
        variables = {f"--w3m-v{k}": value for k in range(L.MAX_THEME_VARIABLES)}
        frame = Intent(t="intent", s=n + 1, a=0, iid=f"t{n}", node="host", act="set_theme_variables",
                       args={"variables": variables})
        out = session.receive(frame, 100 * n)
        assert [f.status for f in out.frames if isinstance(f, IntentAck)] == ["ok"]
    held = sum(len(data) for _, data in session.ring)
    assert held <= L.RING_BYTES
    assert held == session.ring_bytes
    seqs = [seq for seq, _ in session.ring]
    assert seqs == list(range(seqs[0], session.out_seq + 1))  # contiguous, the newest kept
    # the frames that fell out cannot be replayed: a reconnect from the start gets a snapshot
    frames = h.rejoin(last=1)
    assert [f["t"] for f in frames][:3] == ["joined", "theme", "snapshot"]
