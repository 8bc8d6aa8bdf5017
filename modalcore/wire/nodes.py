"""Tree nodes (PROTOCOL.md, "Tree nodes").

A `Node` carries the wire fields (id, type, props, children) and, off the wire, the messages
its actions produce. Handlers never take part in equality or encoding: two nodes that draw the
same are the same to the diff.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from typing import Any

from .registry import check_names

Props = Mapping[str, Any]
# A handler is a message, or a function from validated intent args to a message.
Handler = Any


_FLOOR = operator.attrgetter("floor")
_ID = operator.attrgetter("id")
_CHILDREN = operator.attrgetter("c")
_IS_STR = str.__instancecheck__  # isinstance(value, str), callable from C


class Node:
    __slots__ = ("id", "t", "p", "c", "handlers", "floor")

    def __init__(
        self,
        id: str,
        t: str,
        p: Props | None = None,
        c: Iterable[Node] = (),
        handlers: Mapping[str, Handler] | None = None,
    ) -> None:
        self.id = id
        self.t = t
        self.p: dict[str, Any] = dict(p) if p else {}
        self.c: tuple[Node, ...] = tuple(c)
        self.handlers: Mapping[str, Handler] = handlers or {}
        # A lower bound of this subtree's msgpack size: map header, "id" and "t" keys and values,
        # each prop's key and at least a byte of its value (a string: its length and a byte).
        # (summed in C: this runs for every node a render builds)
        props = self.p
        self.floor: int = (8 + len(id) + len(t) + sum(map(_FLOOR, self.c)) + sum(map(len, props))
                           + 2 * len(props) + sum(map(len, filter(_IS_STR, props.values()))))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Node):
            return NotImplemented
        return self.id == other.id and self.t == other.t and self.p == other.p and self.c == other.c

    def __hash__(self) -> int:
        return hash((self.id, self.t))

    def __repr__(self) -> str:
        return f"Node({self.id!r}, {self.t!r}, {self.p!r}, {len(self.c)} children)"

    def to_wire(self) -> dict[str, Any]:
        """The node as the wire carries it; built on demand, never kept (a kept copy doubled a
        live tree's memory for the rare snapshot it saves: issue 17's idle figure)."""
        wire: dict[str, object] = {"id": self.id, "t": self.t}
        if self.p:
            wire["p"] = self.p
        if self.c:
            wire["c"] = list(map(Node.to_wire, self.c))
        return wire

    @staticmethod
    def from_wire(wire: Mapping[str, Any]) -> Node:
        return Node(
            wire["id"],
            wire["t"],
            wire.get("p") or {},
            [Node.from_wire(child) for child in wire.get("c") or ()],
        )

    def walk(self) -> Iterable[Node]:
        yield self
        for child in self.c:
            yield from child.walk()

    def find(self, node_id: str) -> Node | None:
        for node in self.walk():
            if node.id == node_id:
                return node
        return None


def node(
    t: str,
    id: str,
    children: Iterable[Node] = (),
    *,
    on: Mapping[str, Handler] | None = None,
    pending: Mapping[str, object] | None = None,
    **props: object,
) -> Node:
    """Build a node. `on` maps actions to handlers; `pending` gives actions' pending hints.

    Props whose value is None are left out (the wire never carries nil props). A type or a prop
    the registry (wire/registry.py) lacks raises NodeContractError.
    """
    clean = {key: value for key, value in props.items() if value is not None}
    check_names(t, clean)
    if on:
        hints = pending or {}
        clean["on"] = {action: hints.get(action) for action in on}
    return Node(id, t, clean, children, on)


def path_to(root: Node, node_id: str) -> list[Node] | None:
    """The nodes from `root` down to the node with that id (it last), or None when the tree has
    none: found by walking the tree, which costs less than keeping an index of every tree a
    session draws (most trees are never looked into: one lookup per intent). Ids are unique in
    a tree, so the first node found is the one."""
    if root.id == node_id:
        return [root]
    path = _path_under(root, node_id)
    if path is not None:
        path.reverse()
    return path


def _path_under(node: Node, node_id: str) -> list[Node] | None:
    """The path from `node` down to the node `node_id`, the deepest first; per level the
    children's ids are searched in C, and only children that have children are entered."""
    children = node.c
    if node_id in map(_ID, children):
        for child in children:
            if child.id == node_id:
                return [child, node]
    for child in filter(_CHILDREN, children):
        path = _path_under(child, node_id)
        if path is not None:
            path.append(node)
            return path
    return None
