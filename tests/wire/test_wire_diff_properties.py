"""Property tests of the keyed diff: random trees, random edits, the patch always lands."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modalcore.wire.codec import encode
from modalcore.wire.diff import INSERT, MOVE, PROPS, REMOVE, REPLACE, apply, diff
from modalcore.wire.framing import choose_update
from modalcore.wire.nodes import Node

TYPES = ("stack", "text", "button", "view", "list-item", "spinner")
PROP_KEYS = ("text", "variant", "open", "gap", "name", "busy")
PROP_VALUES = st.one_of(
    st.booleans(),
    st.integers(min_value=-3, max_value=300),
    st.text(alphabet="abcé✓ ", max_size=6),
    st.lists(st.integers(0, 3), max_size=2),
)
PROP_MAPS = st.dictionaries(st.sampled_from(PROP_KEYS), PROP_VALUES, max_size=4)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Wire = dict[str, Any]
# weighted: reorders and moves are the interesting cases for a keyed diff
EDITS = ("props", "props", "reorder", "reorder", "reorder", "move", "move", "move", "insert",
         "insert", "remove", "type", "root-type", "reuse-id")


def wire_form(node: Wire) -> Wire:
    """Canonical wire form: `p` and `c` left out when empty."""
    out: Wire = {"id": node["id"], "t": node["t"]}
    if node["p"]:
        out["p"] = dict(node["p"])
    if node["c"]:
        out["c"] = [wire_form(child) for child in node["c"]]
    return out


def _all(node: Wire) -> list[Wire]:
    found = [node]
    for child in node["c"]:
        found.extend(_all(child))
    return found


def _parent_of(root: Wire, target: Wire) -> Wire | None:
    for node in _all(root):
        if any(child is target for child in node["c"]):
            return node
    return None


@st.composite
def trees(draw: st.DrawFn, max_nodes: int = 14) -> Wire:
    count = draw(st.integers(min_value=1, max_value=max_nodes))
    nodes: list[Wire] = []
    for index in range(count):
        node = {"id": f"n{index}", "t": draw(st.sampled_from(TYPES)), "p": draw(PROP_MAPS), "c": []}
        if nodes:
            parent = nodes[draw(st.integers(0, len(nodes) - 1))]
            parent["c"].insert(draw(st.integers(0, len(parent["c"]))), node)
        nodes.append(node)
    return nodes[0]


@st.composite
def edited(draw: st.DrawFn, tree: Wire) -> Wire:
    """`tree` after a random series of edits: props, types, reorders, moves, inserts, removals."""
    root = copy.deepcopy(tree)
    fresh = 0
    for _ in range(draw(st.integers(0, 8))):
        nodes = _all(root)
        kind = draw(st.sampled_from(EDITS))
        target = nodes[draw(st.integers(0, len(nodes) - 1))]
        if kind == "props":
            target["p"] = draw(PROP_MAPS)
        elif kind == "type":
            target["t"] = draw(st.sampled_from(TYPES))
        elif kind == "root-type" and draw(st.integers(0, 3)) == 0:
            root["t"] = draw(st.sampled_from(TYPES))
        elif kind == "reorder":
            parents = [node for node in nodes if len(node["c"]) >= 2]
            if parents:
                parent = parents[draw(st.integers(0, len(parents) - 1))]
                parent["c"] = draw(st.permutations(parent["c"]))
        elif kind == "insert":
            fresh += 1
            child = {"id": f"new{fresh}", "t": draw(st.sampled_from(TYPES)), "p": draw(PROP_MAPS), "c": []}
            target["c"].insert(draw(st.integers(0, len(target["c"]))), child)
        elif kind in ("remove", "move", "reuse-id") and target is not root:
            holder = _parent_of(root, target)
            assert holder is not None
            holder["c"] = [child for child in holder["c"] if child is not target]
            if kind == "remove":
                continue
            if kind == "reuse-id":
                # the id comes back elsewhere as another node (new type, new props, no children)
                target = {"id": target["id"], "t": draw(st.sampled_from(TYPES)), "p": draw(PROP_MAPS), "c": []}
            hosts = [node for node in _all(root)]
            host = hosts[draw(st.integers(0, len(hosts) - 1))]
            host["c"].insert(draw(st.integers(0, len(host["c"]))), target)
    return root


def strict_apply(tree: Wire, ops: list[list[Any]]) -> Wire:
    """Apply ops like the renderer does, checking what a keyed client relies on at every step:
    ids stay unique, every id named exists, indexes are in range."""
    result = copy.deepcopy(tree)
    for op in ops:
        before = {node["id"] for node in _wire_nodes(result)}
        code = op[0]
        if code == INSERT:
            assert op[1] in before, f"insert into unknown parent {op[1]}"
            new_ids = [node["id"] for node in _wire_nodes(op[3])]
            assert not before & set(new_ids), f"insert would duplicate {before & set(new_ids)}"
            parent = _find(result, op[1])
            assert 0 <= op[2] <= len(parent.get("c", []))
        elif code == REMOVE:
            assert op[1] in before and op[1] != result["id"]
        elif code == MOVE:
            parent = _find(result, op[1])
            assert op[2] in [child["id"] for child in parent.get("c", [])]
            assert 0 <= op[3] < len(parent["c"])
        elif code == PROPS:
            assert op[1] in before
            assert op[2], "an empty props merge is never sent"
        elif code == REPLACE:
            assert op[1] in before
            replaced = _find(result, op[1])
            remaining = before - {node["id"] for node in _wire_nodes(replaced)}
            assert not remaining & {node["id"] for node in _wire_nodes(op[2])}
        result = apply(result, [op])
        ids = [node["id"] for node in _wire_nodes(result)]
        assert len(ids) == len(set(ids)), f"duplicate ids after {op}"
    return result


def _wire_nodes(node: Wire) -> list[Wire]:
    found = [node]
    for child in node.get("c", []):
        found.extend(_wire_nodes(child))
    return found


def _find(root: Wire, node_id: str) -> Wire:
    return next(node for node in _wire_nodes(root) if node["id"] == node_id)


@st.composite
def tree_pairs(draw: st.DrawFn) -> tuple[Node, Node]:
    a = draw(trees())
    b = draw(edited(a))
    return Node.from_wire(wire_form(a)), Node.from_wire(wire_form(b))


@SETTINGS
@given(tree_pairs())
def test_applying_the_diff_to_a_gives_b(pair: tuple[Node, Node]) -> None:
    a, b = pair
    ops = diff(a, b)
    assert apply(a.to_wire(), ops) == b.to_wire()
    # every op is valid when applied (unique ids, known ids, indexes in range) ...
    assert strict_apply(a.to_wire(), ops) == b.to_wire()
    # ... and removals come first
    codes = [op[0] for op in ops]
    removals = codes.count(REMOVE)
    assert codes[:removals] == [REMOVE] * removals


@settings(max_examples=60, deadline=None)
@given(trees())
def test_diff_of_equal_trees_is_empty(tree: Wire) -> None:
    a = Node.from_wire(wire_form(tree))
    b = Node.from_wire(wire_form(tree))
    assert diff(a, b) == []
    assert choose_update(a, b) == []


@SETTINGS
@given(tree_pairs())
def test_choose_update_never_sends_ops_larger_than_half_a_snapshot(pair: tuple[Node, Node]) -> None:
    a, b = pair
    ops = choose_update(a, b)
    if ops is None:
        assert len(encode(diff(a, b))) * 2 > len(encode(b.to_wire()))
    else:
        assert len(encode(ops)) * 2 <= len(encode(b.to_wire()))
        assert apply(a.to_wire(), ops) == b.to_wire()


def test_choose_update_sends_a_snapshot_when_everything_changed() -> None:
    a = Node.from_wire({"id": "r", "t": "stack", "c": [{"id": f"x{i}", "t": "text"} for i in range(5)]})
    b = Node.from_wire({"id": "r", "t": "view", "c": [{"id": f"y{i}", "t": "text"} for i in range(5)]})
    assert choose_update(a, b) is None


def test_choose_update_sends_a_patch_for_a_small_change() -> None:
    children = [{"id": f"x{i}", "t": "text", "p": {"text": f"row {i}"}} for i in range(10)]
    a = Node.from_wire({"id": "r", "t": "stack", "c": children})
    b = Node.from_wire({"id": "r", "t": "stack", "c": [*children[:-1], {"id": "x9", "t": "text", "p": {"text": "!"}}]})
    assert choose_update(a, b) == [[PROPS, "x9", {"text": "!"}]]
