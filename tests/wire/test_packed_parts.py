"""Issue 41: a snapshot chosen while rendering packs only its root and reuses the bytes of the
top-level children packed for the previous one (a session's memoised views are the same objects
render after render); the bytes on the wire are `encode(tree.to_wire())`, byte for byte."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from modalcore.wire.codec import encode
from modalcore.wire.framing import PackedParts, choose
from modalcore.wire.nodes import Node
from modalcore_dev.bench.engine_bench import Clicker, new_session
from modalcore.engine.session import Session
from modalcore.wire.serverframes import Snapshot, encoded, wire

from .test_wire_diff_properties import SETTINGS, Wire, edited, trees


def _node(tree: Wire) -> Node:
    return Node(tree["id"], tree["t"], tree["p"], [_node(child) for child in tree["c"]])


@SETTINGS
@given(st.data())
def test_packed_tree_bytes_are_the_encoded_wire_tree_whatever_was_packed_before(data: st.DataObject) -> None:
    packed = PackedParts()
    first = data.draw(trees())
    old = _node(first)
    assert packed.tree_bytes(old) == encode(old.to_wire())
    # the next root: new, over children kept from the old tree or built afresh with the same ids
    new = _node(data.draw(edited(first)))
    kept = {child.id: child for child in old.c}
    children = [kept[child.id] if child.id in kept and child == kept[child.id] else child for child in new.c]
    root = Node(new.id, new.t, new.p, children)
    assert packed.tree_bytes(root) == encode(root.to_wire())
    assert packed.tree_bytes(root) == encode(root.to_wire())


def test_a_child_replaced_under_the_same_id_is_packed_again() -> None:
    packed = PackedParts()
    before = Node("root", "modal", {"open": True}, [Node("a", "text", {"text": "one"})])
    packed.tree_bytes(before)
    after = Node("root", "modal", {"open": True}, [Node("a", "text", {"text": "two"})])
    assert packed.tree_bytes(after) == encode(after.to_wire())


def test_a_root_of_many_children_and_no_props_packs_to_its_encoding() -> None:
    packed = PackedParts()
    children = [Node(f"c{i}", "text", {"text": str(i)}) for i in range(20)]
    for root in (Node("root", "stack", None, children), Node("root", "stack", {"gap": 1}, children[:3]),
                 Node("root", "stack", {"gap": 1}, children)):
        assert packed.tree_bytes(root) == encode(root.to_wire())


def _all_wallets_snapshots(session: Session, presses: int) -> Iterator[Snapshot]:
    """The snapshots `session` sends while it is pressed through All Wallets (open, All Wallets,
    back, close, again) `presses` times; each is looked at before the next press."""
    clicker = Clicker(session)
    cycle = [("host", "open"), ("connect/all-wallets", "press"), ("header/back", "press"), ("host", "close")]
    for index in range(presses):
        node, act = cycle[index % len(cycle)]
        for frame in clicker.intent(node, act):
            if isinstance(frame, Snapshot):
                yield frame
        clicker.settle(clicker.pending)


def test_the_all_wallets_snapshot_of_a_session_is_its_tree_encoded() -> None:
    session = new_session()
    snapshots = 0
    for frame in _all_wallets_snapshots(session, 24):
        snapshots += 1
        assert frame.tree == session.tree.to_wire()
        assert encoded(frame) == encode(wire(frame))
    assert snapshots >= 3
    assert choose(session.tree, session.tree, session.packed).ops == []
