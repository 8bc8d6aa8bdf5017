"""Keyed tree diff (PROTOCOL.md, "Patches"). Pure: trees in, ops out.

Removals come first (so an id never stands twice in the client's tree), then a walk of the new
tree in document order emits replacements, prop merges, inserts and moves.
"""

from __future__ import annotations

import copy
import operator
from itertools import compress
from typing import Any

from .nodes import Node

INSERT, REMOVE, MOVE, PROPS, REPLACE = 0, 1, 2, 3, 4

Op = list[Any]
_ID = operator.attrgetter("id")


def diff(old: Node, new: Node) -> list[Op]:
    """Ops turning `old` into `new`.

    The walk pairs each old node with the new node of the same id under the same parent (ids
    are unique in a tree, so that pairing is the whole keyed match), and skips a subtree that is
    the same object in both trees: views drawn from unchanged slices are the same nodes (a
    session's memo, views/__init__.py), so their cost is nothing.
    """
    return wire_ops(diff_nodes(old, new))


def diff_nodes(old: Node, new: Node) -> list[Op]:
    """`diff`, with the subtrees that INSERT and REPLACE carry left as nodes (`wire_ops` turns
    them into their wire form): a caller that may send a snapshot instead need not build them."""
    if old is new:
        return []
    if old.id != new.id or old.t != new.t:
        return [[REPLACE, old.id, new]]
    removals: list[Op] = []
    _collect_removals(old, new, removals)
    ops: list[Op] = []
    _diff_node(old, new, ops)
    return removals + ops


def carried(ops: list[Op]) -> list[Node]:
    """The subtrees the ops of `diff_nodes` carry whole (inserted or replacing)."""
    return [op[-1] for op in ops if op[0] == INSERT or op[0] == REPLACE]


def wire_ops(ops: list[Op]) -> list[Op]:
    """The ops of `diff_nodes` as the wire carries them (in place)."""
    for op in ops:
        if op[0] == INSERT or op[0] == REPLACE:
            op[-1] = op[-1].to_wire()
    return ops


def _collect_removals(old: Node, new: Node, out: list[Op]) -> None:
    """REMOVE for every old child that is not a child of the new node of the same id, depth
    first in document order; the children that stay are walked with their new selves."""
    if len(old.c) == len(new.c) and all(map(operator.is_, old.c, new.c)):  # the same children, compared in C
        return  # the very same nodes: nothing under them leaves
    old_ids, new_ids = list(map(_ID, old.c)), list(map(_ID, new.c))
    if old_ids == new_ids:  # the same ids in the same order (in C): pairwise
        for was, now in zip(old.c, new.c):
            if now is not was:
                _collect_removals(was, now, out)
        return
    staying = dict(zip(new_ids, new.c))
    for child in old.c:
        after = staying.get(child.id)
        if after is None:
            out.append([REMOVE, child.id])
        elif after is not child:
            _collect_removals(child, after, out)


def _props_delta(old: dict[str, object], new: dict[str, object]) -> dict[str, object]:
    if list(old) == list(new):  # the same keys in the same order (usual): the changed values found in C
        changed = compress(new.items(), map(operator.ne, old.values(), new.values()))
        return dict(changed)
    delta = {key: value for key, value in new.items() if key not in old or old[key] != value}
    for key in old:
        if key not in new:
            delta[key] = None
    return delta


def _diff_node(old: Node, new: Node, ops: list[Op]) -> None:
    if old is new:
        return
    if old.p != new.p:
        ops.append([PROPS, new.id, _props_delta(old.p, new.p)])
    if len(old.c) == len(new.c) and all(map(operator.is_, old.c, new.c)):  # the same children, compared in C
        return
    old_ids, new_ids = list(map(_ID, old.c)), list(map(_ID, new.c))
    if old_ids == new_ids:
        # the same ids in the same order (in C): no insert or move, each child with its old self
        for was, now in zip(old.c, new.c):
            if was is now:
                continue
            if was.t != now.t:
                ops.append([REPLACE, now.id, now])
            else:
                _diff_node(was, now, ops)
        return
    kept = dict(zip(old_ids, old.c))  # looked up by the new children's ids only: those that stay
    order = list(filter(set(new_ids).__contains__, old_ids))  # the ids that stay, in old order
    for index, child in enumerate(new.c):
        previous = kept.get(child.id)
        if previous is None:
            ops.append([INSERT, new.id, index, child])
            order.insert(index, child.id)
            continue
        if order[index] != child.id:
            order.remove(child.id)
            order.insert(index, child.id)
            ops.append([MOVE, new.id, child.id, index])
        if previous.t != child.t:
            ops.append([REPLACE, child.id, child])
        else:
            _diff_node(previous, child, ops)


def apply(tree: dict[str, Any], ops: list[Op]) -> dict[str, object]:
    """Apply ops to a wire tree (a copy is returned). Mirrors the renderer's patcher."""
    root = copy.deepcopy(tree)
    index: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {}

    def register(node: dict[str, Any], parent: dict[str, Any] | None) -> None:
        index[node["id"]] = (node, parent)
        for child in node.get("c", ()):
            register(child, node)

    def unregister(node: dict[str, Any]) -> None:
        index.pop(node["id"], None)
        for child in node.get("c", ()):
            unregister(child)

    register(root, None)
    for op in ops:
        code = op[0]
        if code == INSERT:
            parent, _ = index[op[1]]
            child = copy.deepcopy(op[3])
            parent.setdefault("c", []).insert(op[2], child)
            register(child, parent)
        elif code == REMOVE:
            node, holder = index[op[1]]
            if holder is None:
                raise ValueError("cannot remove the root")
            holder["c"].remove(node)
            if not holder["c"]:
                del holder["c"]
            unregister(node)
        elif code == MOVE:
            parent, _ = index[op[1]]
            node, _ = index[op[2]]
            parent["c"].remove(node)
            parent["c"].insert(op[3], node)
        elif code == PROPS:
            node, _ = index[op[1]]
            props = node.setdefault("p", {})
            for key, value in op[2].items():
                if value is None:
                    props.pop(key, None)
                else:
                    props[key] = value
            if not props:
                del node["p"]
        elif code == REPLACE:
            node, holder = index[op[1]]
            replacement = copy.deepcopy(op[2])
            unregister(node)
            if holder is None:
                root = replacement
                register(root, None)
            else:
                position = holder["c"].index(node)
                holder["c"][position] = replacement
                register(replacement, holder)
        else:
            raise ValueError(f"unknown opcode {code}")
    return root
