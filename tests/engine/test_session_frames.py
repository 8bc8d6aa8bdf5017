"""PROTOCOL.md: envelope, versions, resync and resume, as a session produces them."""

from __future__ import annotations

from typing import Any

from modalcore.enginetest import Harness
from modalcore.wire.diff import apply
from tests.wire.test_wire_vectors import FIELD_ORDER, NODE_ORDER

Frame = dict[str, Any]


def journey(h: Harness) -> None:
    h.host("open")
    h.press("connect/all-wallets")
    h.press("header/back")
    h.host("set_theme_mode", mode="light")
    h.intent("no/such/node")
    h.host("close")


def _nodes(tree: dict[str, Any]) -> list[dict[str, Any]]:
    found = [tree]
    for child in tree.get("c", []):
        found.extend(_nodes(child))
    return found


def test_server_frames_are_numbered_one_by_one(h: Harness) -> None:
    journey(h)
    numbered = [f["s"] for f in h.frames if f["t"] != "joined"]
    assert numbered == list(range(1, len(numbered) + 1))
    assert h.frames[0]["t"] == "joined" and h.frames[0]["s"] == 0


def test_server_frames_acknowledge_the_highest_client_seq(h: Harness) -> None:
    journey(h)
    assert h.frames[-1]["a"] == h.client_seq


def test_server_frame_keys_are_in_protocol_order(h: Harness) -> None:
    journey(h)
    for frame in h.frames:
        keys = list(frame)
        assert keys[:3] == ["t", "s", "a"]
        order = FIELD_ORDER[frame["t"]]
        assert [order.index(k) for k in keys[3:]] == sorted(order.index(k) for k in keys[3:])
        if frame["t"] == "snapshot":
            for node in _nodes(frame["tree"]):
                assert [NODE_ORDER.index(k) for k in node] == sorted(NODE_ORDER.index(k) for k in node)


def test_tree_props_are_never_nil(h: Harness) -> None:
    journey(h)
    for node in _nodes(h.tree.to_wire()):
        assert all(value is not None for key, value in node.get("p", {}).items() if key != "on")


def test_versions_count_snapshots_and_patches_together(h: Harness) -> None:
    journey(h)
    h.resync(0)
    journey(h)
    version = 0
    for frame in h.frames:
        if frame["t"] == "snapshot":
            assert frame["v"] == version + 1
            version = frame["v"]
        elif frame["t"] == "patch":
            assert (frame["base"], frame["v"]) == (version, version + 1)
            version = frame["v"]
    assert version == h.session.version


def test_patches_and_snapshots_rebuild_the_current_tree(h: Harness) -> None:
    journey(h)
    tree: dict[str, Any] | None = None
    for frame in h.frames:
        if frame["t"] == "snapshot":
            tree = frame["tree"]
        elif frame["t"] == "patch":
            assert tree is not None
            tree = apply(tree, frame["ops"])
    assert tree == h.tree.to_wire()


def test_resync_sends_a_snapshot(opened: Harness) -> None:
    frames = opened.resync(0)
    assert [f["t"] for f in frames] == ["snapshot"]
    assert frames[0]["tree"] == opened.tree.to_wire()
    assert frames[0]["v"] == opened.session.version


def test_rejoin_with_last_in_the_ring_resends_exactly_the_missed_frames(opened: Harness) -> None:
    seen = opened.server_seq
    opened.press("connect/all-wallets")
    missed = [f for f in opened.frames if f["s"] > seen]
    frames = opened.rejoin(last=seen)
    assert frames[0]["t"] == "joined" and frames[0]["resumed"] is True
    assert frames[1:] == missed


def test_rejoin_without_last_gets_theme_snapshot_and_host_state(opened: Harness) -> None:
    frames = opened.rejoin(last=None)
    kinds = [f["t"] for f in frames]
    assert kinds[:3] == ["joined", "theme", "snapshot"]
    assert {f["kind"] for f in frames if f["t"] == "host_event"} >= {"state", "account", "network"}
    assert frames[2]["tree"] == opened.tree.to_wire()


def test_rejoin_with_last_already_acknowledged_gets_a_snapshot(opened: Harness) -> None:
    opened.press("connect/all-wallets")
    opened.host("set_theme_mode", mode="light")  # acknowledges everything before it
    frames = opened.rejoin(last=1)
    assert "snapshot" in [f["t"] for f in frames]
