"""behaviour.md §2: modal state holds loading, open, selectedNetworkId, activeChain and initialized."""

from __future__ import annotations

from collections.abc import Callable

from modalcore.enginetest import Harness
from modalcore.slices import modal

FLAGS = ("loading", "open", "selectedNetworkId", "activeChain", "initialized")


def test_modal_state_flags_are_in_the_model(h: Harness) -> None:
    state = h.model.modal
    assert (state.open, state.loading, state.initialized) == (False, False, True)
    assert state.selected_network_id == "eip155:1"
    assert state.active_chain == "eip155"


def test_modal_state_flags_are_in_the_host_state_event(h: Harness) -> None:
    data = h.host_state("state")
    assert set(FLAGS) <= set(data)
    assert data["open"] is False and data["loading"] is False and data["initialized"] is True
    assert data["selectedNetworkId"] == "eip155:1"
    assert data["activeChain"] == "eip155"


def test_modal_state_follows_the_default_network(make: Callable[..., Harness]) -> None:
    h = make(options={"networks": ["eip155:1", "eip155:31337"], "defaultNetwork": "eip155:31337"})
    assert h.model.modal.selected_network_id == "eip155:31337"
    assert h.host_state()["selectedNetworkId"] == "eip155:31337"


def test_host_state_event_follows_open_and_close(h: Harness) -> None:
    h.host("open")
    assert h.host_state()["open"] is True
    h.host("close")
    assert h.host_state()["open"] is False


def test_host_state_event_reports_loading(opened: Harness) -> None:
    opened.apply(lambda m: (modal.set_loading(m, True), []))
    assert opened.host_state()["loading"] is True
    assert opened.node("modal").p["loading"] is True
    opened.host("close")  # closing ends loading
    assert opened.host_state()["loading"] is False


def test_host_state_event_is_sent_only_when_it_changed(opened: Harness) -> None:
    opened.host("set_theme_mode", mode="light")
    assert not opened.frames_of("host_event", opened.last)


def test_modal_node_carries_open_view_and_loading(opened: Harness) -> None:
    props = opened.node("modal").p
    assert props["open"] is True and props["view"] == "Connect" and props["loading"] is False


def test_a_close_from_connect_says_in_the_state_event_that_no_account_connected(opened: Harness) -> None:
    # the wagmi connector rejects connect() on exactly this event: no grace timer
    opened.host("close")
    data = opened.host_state()
    assert data["open"] is False and data["connected"] is False


def test_a_close_after_a_connection_says_connected_in_the_same_state_event(h: Harness) -> None:
    h.connect_wallet("MetaMask")
    h.host("close")
    data = h.host_state()
    assert data["open"] is False and data["connected"] is True


def test_the_state_event_that_closes_the_modal_comes_before_the_account_event(h: Harness) -> None:
    h.connect_wallet("MetaMask")
    kinds = [f["kind"] for f in h.frames_of("host_event", h.last)]
    assert "account" in kinds and ("state" not in kinds or kinds.index("state") < kinds.index("account"))
