"""behaviour.md "Security" and PROTOCOL.md "Intents" / "Limits", at the session level."""

from __future__ import annotations

from typing import Any

import pytest

from modalcore.enginetest import Harness, connected_accounts
from modalcore.slices.siwx import SiwxState
from modalcore.wire.frames import Intent


def wallet_item(h: Harness, name: str = "MetaMask") -> str:
    items = [n for n in h.find_text(name, exact=True) if n.t == "wallet-item"]
    assert items, f"no wallet-item named {name}: {h.texts()}"
    return items[0].id


def test_intent_for_a_node_not_in_the_tree_is_invalid_and_changes_nothing(opened: Harness) -> None:
    model, tree, version = opened.model, opened.tree, opened.session.version
    assert opened.intent("no/such/node") == "invalid"
    assert [f["t"] for f in opened.last] == ["intent_ack"]
    assert opened.last[0]["error"]
    assert opened.model is model
    assert opened.tree is tree and opened.session.version == version


def test_intent_for_a_node_of_an_older_tree_is_stale_until_the_client_caught_up(opened: Harness) -> None:
    opened.press("connect/all-wallets")  # the Connect view's nodes are gone now
    stale = Intent(t="intent", s=opened.client_seq + 1, a=1, iid="late", node="connect/all-wallets",
                   act="press", args={})
    opened.client_seq += 1
    frames = opened.send(stale)
    assert frames[0]["status"] == "stale"
    assert opened.history == ["Connect", "AllWallets"]


def test_action_the_node_does_not_offer_is_invalid(opened: Harness) -> None:
    model = opened.model
    assert opened.intent("header/title", "press") == "invalid"
    assert opened.intent("snackbar", "toggle", {"checked": True}) == "invalid"
    assert opened.intent("connect/all-wallets", "close") == "invalid"
    assert opened.intent("host", "press") == "invalid"
    assert opened.model is model


@pytest.mark.parametrize("node,act,args", [
    ("modal", "close", {"unknown": 1}),
    ("connect/all-wallets", "press", {"value": 5}),
    ("host", "open", {"view": 5}),
    ("host", "set_theme_mode", {"mode": "sepia"}),
    ("host", "set_theme_mode", {"mode": 1}),
    ("host", "switch_network", {"network": 5}),
    ("host", "switch_network", {}),
    ("host", "set_theme_variables", {"variables": "dark"}),
])
def test_args_of_the_wrong_type_are_invalid_and_change_nothing(
    opened: Harness, node: str, act: str, args: dict[str, Any]
) -> None:
    model, count = opened.model, len(opened.frames)
    assert opened.intent(node, act, args) == "invalid"
    assert opened.model is model
    assert [f["t"] for f in opened.frames[count:]] == ["intent_ack"]


@pytest.mark.parametrize("args", [{"value": 5}, {"value": "2", "extra": 1}, {}, {"value": "9" * 129}])
def test_select_args_of_the_wrong_type_are_invalid_and_change_nothing(make: Any, args: dict[str, Any]) -> None:
    h = make(accounts=connected_accounts())
    h.host("open")
    tabs = h.of_type("tabs")[0]
    model = h.model
    assert h.intent(tabs.id, "select", args) == "invalid"
    assert h.model is model
    assert h.intent(tabs.id, "select", {"value": "2"}) == "ok"
    assert h.node(tabs.id).p["active"] == 2


def test_retransmitted_intent_is_applied_once(make: Any) -> None:
    h = make(siwx=SiwxState(enabled=True, required=True, has_session=False), accounts=connected_accounts(),
             history=["Account", "SIWXSignMessage"], is_open=True)
    assert h.host("close") == "ok"  # refused: the modal shakes once
    assert h.model.modal.shake == 1
    for _ in range(3):
        assert h.intent("host", "close", iid="i1") == "ok"
        assert [f["t"] for f in h.last] == ["intent_ack"]
    assert h.model.modal.shake == 1


def test_retransmitted_wallet_press_sends_one_effect(opened: Harness) -> None:
    item = wallet_item(opened)
    opened.press(item, iid="connect-1")
    assert len(opened.effects()) == 1
    assert opened.intent(item, iid="connect-1") == "ok"  # the reconnecting client sends it again
    assert [f["t"] for f in opened.last] == ["intent_ack"]
    assert len(opened.effects()) == 1


def test_retransmitted_intent_gets_its_first_outcome(opened: Harness) -> None:
    assert opened.intent("no/such/node", iid="x") == "invalid"
    assert opened.intent("connect/all-wallets", iid="x") == "invalid"
    assert opened.history == ["Connect"]


def test_intents_beyond_a_burst_of_30_are_rate_limited(h: Harness) -> None:
    statuses = [h.host("set_theme_mode", mode="dark") for _ in range(31)]
    assert statuses == ["ok"] * 30 + ["rate_limited"]


def test_rate_limited_intent_is_not_applied(h: Harness) -> None:
    for _ in range(30):
        h.host("set_theme_mode", mode="dark")
    assert h.host("set_theme_mode", mode="light") == "rate_limited"
    assert h.model.theme.mode == "dark"
    assert [f["t"] for f in h.last] == ["intent_ack"]


def test_rate_limit_allows_intents_again_after_time_passes(h: Harness) -> None:
    for _ in range(30):
        h.host("set_theme_mode", mode="dark")
    assert h.host("set_theme_mode", mode="dark") == "rate_limited"
    h.advance(34)  # 30 per second: one token every 33.3 ms
    assert h.host("set_theme_mode", mode="dark") == "ok"
    assert h.host("set_theme_mode", mode="dark") == "rate_limited"
    h.advance(1_000)
    assert [h.host("set_theme_mode", mode="dark") for _ in range(31)] == ["ok"] * 30 + ["rate_limited"]


def test_invalid_intents_count_against_the_rate_limit(h: Harness) -> None:
    for _ in range(30):
        h.intent("no/such/node")
    assert h.host("set_theme_mode", mode="light") == "rate_limited"


def test_effect_result_for_an_unknown_effect_is_ignored(opened: Harness) -> None:
    model = opened.model
    assert opened.effect_result("e999", result=["0x0"]) == []
    assert opened.model is model


def test_late_effect_result_after_the_timeout_is_ignored(opened: Harness) -> None:
    opened.press(wallet_item(opened))
    effect = opened.effects()[-1]
    opened.advance(effect["timeout"])
    assert opened.pending_effects() == []
    model = opened.model
    assert opened.effect_result(effect["eid"], result=["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"]) == []
    assert opened.model is model


def test_host_node_is_offered_without_being_in_the_tree(h: Harness) -> None:
    assert h.find("host") is None
    assert h.host("open") == "ok"
