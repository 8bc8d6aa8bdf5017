"""The linked phone as a companion connection of the session (issue 44 item 1, part 3;
PROTOCOL.md "Companion"): one model, one view stack, two connections. A press on either screen
moves both; each connection numbers its own frames; `host_event` frames and wallet requests stay
the host page's; an effect the phone caused goes to the phone; nothing of the companion is saved."""

from __future__ import annotations

from typing import Any

from modalcore.core.evolve import replace
from modalcore.engine.persist import session_to_bytes
from modalcore.enginetest import Harness
from modalcore.enginetest.companion import Phone
from modalcore.slices.embedded import EmbeddedRequest
from modalcore.slices.model import Model, Step

from .test_handoff_engine import IDENTITY, KEY, _claim, _confirm, _offered, _signed_in


def _linked() -> Harness:
    h = _offered()
    h.deliver(_claim(h))
    _confirm(h)
    h.expect(view="Connect", text="Your phone is connected")
    return h


def _numbers(frames: list[dict[str, Any]]) -> list[int]:
    return [int(f["s"]) for f in frames if f["s"]]


def _same_tree(h: Harness, phone: Phone) -> None:
    assert phone.tree_wire == h.tree.to_wire(), "the phone draws another tree than the host's"


def test_the_companion_is_welcomed_with_no_resume_token_and_the_sessions_tree() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    kinds = [f["t"] for f in phone.frames]
    assert kinds == ["joined", "theme", "snapshot"]
    assert phone.frames[0]["resume"] == "" and phone.frames[0]["session"] == h.model.session_id
    assert _numbers(phone.frames) == [1, 2], "the companion numbers its frames from 1"
    _same_tree(h, phone)


def test_a_press_on_the_phone_moves_both_screens() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    host_before = len(h.frames)
    phone.press("connect/all-wallets")
    assert h.view == "AllWallets"
    assert [f for f in h.frames[host_before:] if f["t"] == "patch"], "the host page's screen did not move"
    assert phone.tree.find("view/AllWallets") is not None
    _same_tree(h, phone)
    assert not [f for f in h.frames[host_before:] if f["t"] == "intent_ack"], "the phone's ack went to the host"


def test_a_press_on_the_host_moves_the_phone() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    h.press("connect/all-wallets")
    assert phone.tree.find("view/AllWallets") is not None
    _same_tree(h, phone)
    assert not [f for f in phone.frames if f["t"] == "intent_ack"], "the host's ack went to the phone"


def test_frames_are_numbered_per_connection() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    host_numbers = _numbers(h.frames)
    phone.press("connect/all-wallets")
    h.press("header/back")
    phone.press("connect/all-wallets")
    assert _numbers(phone.frames) == list(range(1, len(_numbers(phone.frames)) + 1))
    all_host = _numbers(h.frames)
    assert all_host == list(range(1, len(all_host) + 1)), "the host's numbering has a gap or a repeat"
    assert all_host[: len(host_numbers)] == host_numbers
    _same_tree(h, phone)


def test_host_events_go_to_the_host_page_only() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    before = len(h.frames)
    phone.press("header/close")
    assert h.host_state()["open"] is False
    assert [f for f in h.frames[before:] if f["t"] == "host_event"], "the host page was not told"
    assert not [f for f in phone.frames if f["t"] == "host_event"], "a host event reached the phone"


def test_a_wallet_request_from_a_press_on_the_phone_goes_to_the_host_page() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    before = len(h.frames)
    phone.press("connect/wallet/dev.modal.wallet")
    wallet = [f for f in h.frames[before:] if f["t"] == "effect" and f["kind"] == "eip1193"]
    assert wallet, "the wallet request did not reach the host page"
    assert not [f for f in phone.frames if f["t"] == "effect"], "a wallet request reached the phone"


def test_a_copy_pressed_on_the_phone_is_the_phones_clipboard() -> None:
    h = _offered()  # Copy link: a clipboard effect (the companion joins before the link here)
    phone = Phone(h, KEY)
    before = len(h.frames)
    phone.press("handoff/copy")
    mine = [f for f in phone.frames if f["t"] == "effect"]
    assert [f["kind"] for f in mine] == ["clipboard"]
    eid = mine[0]["eid"]
    host = h.frames[before:]
    assert not [f for f in host if f["t"] == "effect"], "the host page was asked to copy"
    assert [f for f in host if f["t"] == "effect_cancel" and f["eid"] == eid], "no cancel holds its number"
    phone.effect_result(eid)
    assert eid not in h.session.effects, "the phone's answer did not settle the effect"


def test_the_phone_announces_no_wallets() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    before = h.model
    frames = phone.wallet_event("injected", "accountsChanged", ["0x70997970c51812dc3a010c7d01b50e0d17dc79c8"])
    assert [(f["t"], f["code"]) for f in frames] == [("error", "malformed")]
    assert h.model is before


def test_a_press_on_a_node_the_tree_no_longer_has_is_stale_on_the_phone() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    h.press("connect/all-wallets")
    h.press("header/back")
    ack = phone.intent("nope/never")
    assert ack["status"] in ("stale", "invalid")
    assert phone.intent("host", "open")["status"] == "invalid", "the phone used the host's actions"


def test_the_companion_is_not_saved() -> None:
    alone, paired = _linked(), _linked()
    Phone(paired, KEY).resync()
    assert session_to_bytes(alone.session) == session_to_bytes(paired.session)
    assert not hasattr(paired.session, "companion")


def _waiting(model: Model) -> Step:
    request = EmbeddedRequest(eid="e99", method="eth_sendTransaction", params="[]", key="", chain="eip155:31337")
    model = replace(model, embedded=replace(model.embedded, request=request))
    route = type(model.router.history[0])("ApproveTransaction")
    return replace(model, router=replace(model.router, history=(*model.router.history, route))), []


def test_the_host_patch_is_reused_when_the_phone_had_its_base() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    h.press("connect/all-wallets")
    host_patch = h.latest("patch")
    phone_patch = [f for f in phone.frames if f["t"] == "patch"][-1]
    assert phone_patch["ops"] == host_patch["ops"]


def test_the_companion_is_linked_only_while_the_session_links_its_key() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    assert phone.companion.linked
    assert not Phone(h, "another-key").companion.linked
    h.apply(lambda m: _signed_in(m, IDENTITY.replace("mia", "noa")))  # another account: the phone is unlinked
    assert not phone.companion.linked, "the runner would keep sending to an unlinked phone"


def test_a_theme_change_reaches_the_phone_once() -> None:
    h = _linked()
    phone = Phone(h, KEY)
    assert h.host("set_theme_mode", mode="light") == "ok"
    themes = [f for f in phone.frames if f["t"] == "theme"]
    assert [f["mode"] for f in themes] == ["dark", "light"]
    h.host("set_theme_mode", mode="light")
    assert len([f for f in phone.frames if f["t"] == "theme"]) == 2, "the same theme sent again"
