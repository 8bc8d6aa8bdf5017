"""Issue 17: the keyed diff skips subtrees that are the same objects in both trees, and still
sends exactly the ops the full walk sends (replays depend on byte-identical frames).

`_reference_diff` is the diff as it was before (parent maps, every node compared): the rule is
that the identity-skipping diff gives the same ops on random trees and edits, whether the new
tree shares its unchanged subtrees with the old one (as a session's memoised views do) or was
built afresh.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given

from modalcore.wire.diff import INSERT, MOVE, PROPS, REMOVE, REPLACE, Op, diff
from modalcore.wire.nodes import Node

from .test_wire_diff_properties import SETTINGS, Wire, edited, trees, wire_form
from hypothesis import strategies as st


def _parents(root: Node) -> dict[str, str | None]:
    parents: dict[str, str | None] = {root.id: None}
    stack = [root]
    while stack:
        current = stack.pop()
        for child in current.c:
            parents[child.id] = current.id
            stack.append(child)
    return parents


def _reference_diff(old: Node, new: Node) -> list[Op]:
    if old.id != new.id or old.t != new.t:
        return [[REPLACE, old.id, new.to_wire()]]
    old_parents, new_parents = _parents(old), _parents(new)
    removals: list[Op] = []

    def collect(node: Node) -> None:
        for child in node.c:
            if new_parents.get(child.id, "\0") != node.id:
                removals.append([REMOVE, child.id])
            else:
                collect(child)

    def props_delta(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        delta = {key: value for key, value in b.items() if key not in a or a[key] != value}
        for key in a:
            if key not in b:
                delta[key] = None
        return delta

    ops: list[Op] = []

    def walk(a: Node, b: Node) -> None:
        if a.p != b.p:
            ops.append([PROPS, b.id, props_delta(a.p, b.p)])
        if a.c == b.c:
            return
        kept = {child.id: child for child in a.c if new_parents.get(child.id) == a.id}
        order = [child.id for child in a.c if child.id in kept]
        for index, child in enumerate(b.c):
            previous = kept.get(child.id)
            if previous is None:
                ops.append([INSERT, b.id, index, child.to_wire()])
                order.insert(index, child.id)
                continue
            if order[index] != child.id:
                order.remove(child.id)
                order.insert(index, child.id)
                ops.append([MOVE, b.id, child.id, index])
            if previous.t != child.t:
                ops.append([REPLACE, child.id, child.to_wire()])
            else:
                walk(previous, child)

    collect(old)
    walk(old, new)
    return removals + ops


def _sharing(old: Node, wire: Wire) -> Node:
    """`wire` as nodes, reusing every subtree of `old` that draws the same (same id, same wire
    form): what a session's memo produces for views whose slices did not change."""
    known = {node.id: node for node in old.walk()}

    def build(w: Wire) -> Node:
        previous = known.get(w["id"])
        if previous is not None and previous.to_wire() == w:
            return previous
        return Node(w["id"], w["t"], w.get("p") or {}, [build(child) for child in w.get("c") or ()])

    return build(wire)


@st.composite
def shared_pairs(draw: st.DrawFn) -> tuple[Node, Wire]:
    a = draw(trees())
    return Node.from_wire(wire_form(a)), wire_form(draw(edited(a)))


@SETTINGS
@given(shared_pairs())
def test_rule_skipping_shared_subtrees_sends_the_same_ops(pair: tuple[Node, Wire]) -> None:
    old, wire = pair
    fresh = Node.from_wire(wire)
    shared = _sharing(old, wire)
    expected = _reference_diff(old, fresh)
    assert diff(old, fresh) == expected
    assert diff(old, shared) == expected


def test_rule_a_changed_node_under_a_shared_parent_chain_is_still_found() -> None:
    """The skip is by identity only: an equal-looking but rebuilt subtree is walked, and a
    changed leaf deep in it is sent."""
    leaf = Node("leaf", "text", {"text": "a"})
    kept = Node("kept", "stack", {}, [Node("k1", "text", {"text": "same"})])
    old = Node("root", "stack", {}, [kept, Node("mid", "stack", {}, [leaf])])
    new = Node("root", "stack", {}, [kept, Node("mid", "stack", {}, [Node("leaf", "text", {"text": "b"})])])
    assert diff(old, new) == [[PROPS, "leaf", {"text": "b"}]]
