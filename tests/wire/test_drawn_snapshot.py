"""A snapshot chosen while rendering carries its bytes and draws its wire tree only when someone
reads it (the socket is sent the bytes; nothing on the production path reads the tree). Read, the
tree is the one drawn, and the frame equals, prints and packs as a snapshot built with it."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from modalcore.wire.codec import encode
from modalcore.wire.nodes import Node
from modalcore.wire.serverframes import Snapshot, drawn_snapshot, encoded, server_frame, wire
from modalcore_dev.bench.engine_bench import new_session

from .test_packed_parts import _all_wallets_snapshots


def _counting(node: Node) -> tuple[list[int], Any]:
    calls: list[int] = []

    def draw() -> dict[str, Any]:
        calls.append(1)
        return node.to_wire()
    return calls, draw


def test_a_drawn_snapshot_sent_by_its_known_bytes_never_draws_its_tree() -> None:
    node = Node("modal", "modal", {"open": True}, [Node("a", "text", {"text": "one"})])
    calls, draw = _counting(node)
    frame = drawn_snapshot(3, 1, 2, draw)
    data = encoded(frame, {"tree": encode(node.to_wire())})
    assert calls == []
    assert data == encode(wire(Snapshot(3, 1, 2, node.to_wire())))


def test_a_drawn_snapshot_read_is_the_snapshot_of_its_tree_drawn_once() -> None:
    node = Node("modal", "modal", {"open": True}, [Node("a", "text", {"text": "one"})])
    calls, draw = _counting(node)
    frame = drawn_snapshot(3, 1, 2, draw)
    plain = Snapshot(3, 1, 2, node.to_wire())
    assert frame == plain and repr(frame) == repr(plain)
    assert frame.tree is frame.tree and calls == [1]
    assert wire(frame) == wire(plain) and encoded(frame) == encoded(plain)
    assert server_frame(wire(frame)) == frame
    assert dataclasses.replace(frame, v=9) == Snapshot(3, 1, 9, node.to_wire())
    match frame:
        case Snapshot(tree=tree):
            assert tree == node.to_wire()
    with pytest.raises(AttributeError):
        getattr(frame, "nodes")


def test_the_all_wallets_snapshot_is_sent_without_drawing_its_wire_tree() -> None:
    session = new_session()
    snapshots = 0
    for frame in _all_wallets_snapshots(session, 12):
        snapshots += 1
        assert frame._data is not None
        with pytest.raises(AttributeError):
            object.__getattribute__(frame, "tree")  # the slot: never set, so not drawn
        assert frame.tree == session.tree.to_wire()  # read: drawn, the tree sent
        assert encoded(frame) == encode(wire(frame))
    assert snapshots >= 2
