"""A snapshot is chosen without diffing the trees when the root's new children (ids the old root
lacks: a view opened over another) alone pass half the snapshot. Rule: the choice and the bytes are
the same as deciding from the full diff, whatever the trees."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from modalcore.wire.codec import encode
from modalcore.wire.diff import carried, diff_nodes, wire_ops
from modalcore.wire.framing import PackedParts, choose
from modalcore.wire.nodes import Node
from modalcore_dev.bench.engine_bench import Clicker, new_session

from .test_wire_diff_properties import SETTINGS, tree_pairs


def _by_full_diff(old: Node, new: Node) -> object:
    """The choice as made before the shortcut: ops ([] when nothing changed) or None for a
    snapshot, from the whole diff."""
    ops = diff_nodes(old, new)
    if not ops:
        return []
    snapshot = len(encode(new.to_wire()))
    least = sum(node.floor for node in carried(ops))
    if least * 2 > new.floor and least * 2 > snapshot:
        return None
    wired = wire_ops(ops)  # in place: the carried nodes become their wire form
    return None if len(encode(wired)) * 2 > snapshot else wired


def _chosen(old: Node, new: Node, packed: PackedParts | None = None) -> object:
    update = choose(old, new, packed)
    if update.ops is None:
        assert update.tree_bytes == encode(new.to_wire())
        return None
    return update.ops  # in wire form already when a patch (measured while choosing)


@SETTINGS
@given(tree_pairs())
def test_rule_the_choice_is_the_full_diffs_whatever_the_trees(pair: tuple[Node, Node]) -> None:
    old, new = pair
    assert _chosen(old, new) == _by_full_diff(old, new)


@SETTINGS
@given(tree_pairs(), st.integers(min_value=1, max_value=5))
def test_rule_a_big_new_child_of_the_root_is_a_snapshot_as_the_full_diff_says(pair: tuple[Node, Node],
                                                                                size: int) -> None:
    old, new = pair
    big = Node("big-new-child", "stack", None, [Node(f"b{i}", "text", {"text": "x" * 40}) for i in range(size * 4)])
    grown = Node(new.id, new.t, new.p, [*new.c, big])
    assert _chosen(old, grown) == _by_full_diff(old, grown)


def test_the_all_wallets_press_is_a_snapshot_and_back_a_patch_as_the_full_diff_says() -> None:
    session = new_session()
    clicker = Clicker(session)
    cycle = [("host", "open"), ("connect/all-wallets", "press"), ("header/back", "press"), ("host", "close")]
    for index in range(12):
        before = session.tree
        node, act = cycle[index % len(cycle)]
        clicker.intent(node, act)
        after = session.tree
        assert _chosen(before, after, PackedParts()) == _by_full_diff(before, after)
        clicker.settle(clicker.pending)
