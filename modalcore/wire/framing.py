"""Patch or snapshot (PROTOCOL.md: a snapshot when the patch would pass half a snapshot)."""

from __future__ import annotations

import operator
from typing import NamedTuple

from .codec import array_header, encode, map_header
from .diff import Op, carried, diff_nodes, wire_ops
from .nodes import Node


_ID = operator.attrgetter("id")


class Update(NamedTuple):
    """What to send for a new tree: `ops` ([] when nothing changed) or None for a snapshot,
    with the msgpack bytes already made while choosing (the frame reuses them). A named tuple:
    made on every render, built in one call."""

    ops: list[Op] | None
    ops_bytes: bytes | None = None
    tree_bytes: bytes | None = None


class PackedParts:
    """The msgpack bytes of the top-level children of the last tree packed whole (a session's
    views: a render builds a new root over the same memoized children, views/__init__.py), so
    that the next snapshot packs only its root. Holds one tree's children, which the session's
    tree holds anyway; dropped with the tree when a session compacts."""

    __slots__ = ("_bytes",)

    def __init__(self) -> None:
        self._bytes: dict[int, tuple[Node, bytes]] = {}

    def tree_bytes(self, root: Node) -> bytes:
        """`encode(root.to_wire())`, byte for byte, reusing the bytes of children packed before."""
        if not root.c:
            return encode(root.to_wire())
        known = self._bytes
        kept: dict[int, tuple[Node, bytes]] = {}
        parts: list[bytes] = []
        for child in root.c:
            entry = known.get(id(child))  # the entry holds its node: an id found is that node's
            if entry is None:
                entry = (child, encode(child.to_wire()))
            kept[id(child)] = entry
            parts.append(entry[1])
        self._bytes = kept
        head: dict[str, object] = {"id": root.id, "t": root.t}
        if root.p:
            head["p"] = root.p
        packed = encode(head)  # a map of 2 or 3 entries: a one-byte header, replaced by one of 1 more
        return b"".join((map_header(len(head) + 1), packed[1:], encode("c"), array_header(len(root.c)), *parts))


def choose_update(old: Node, new: Node) -> list[Op] | None:
    """The ops to send, [] when nothing changed, or None when a snapshot is smaller."""
    return choose(old, new).ops


def choose(old: Node, new: Node, packed: PackedParts | None = None) -> Update:
    """`choose_update`, keeping what it encoded to measure.

    The subtrees a patch carries whole are at least their `floor` in bytes: when twice that
    already passes the snapshot, the snapshot is sent without building and encoding the patch
    (the choice is the same as measuring both). The children of the root that are new (their
    ids are not among the old root's) are inserted whole by any patch: when those alone pass
    half the snapshot, it is sent without diffing the trees (a view opened on top of another,
    All Wallets). `packed`: the bytes of children packed before."""
    pack = packed.tree_bytes if packed is not None else _tree_bytes
    tree_bytes: bytes | None = None
    if old is not new and old.id == new.id and old.t == new.t:
        kept = set(map(_ID, old.c))
        inserted = sum(child.floor for child in new.c if child.id not in kept)
        if inserted * 2 > new.floor:
            tree_bytes = pack(new)
            if inserted * 2 > len(tree_bytes):
                return Update(None, tree_bytes=tree_bytes)
    ops = diff_nodes(old, new)
    if not ops:
        return Update(ops)
    least = sum(node.floor for node in carried(ops))
    if least * 2 > new.floor:
        tree_bytes = pack(new) if tree_bytes is None else tree_bytes
        if least * 2 > len(tree_bytes):
            return Update(None, tree_bytes=tree_bytes)
        ops_bytes = encode(wire_ops(ops))
        if len(ops_bytes) * 2 > len(tree_bytes):
            return Update(None, tree_bytes=tree_bytes)
        return Update(ops, ops_bytes)
    ops_bytes = encode(wire_ops(ops))
    doubled = len(ops_bytes) * 2
    if doubled <= new.floor:  # the snapshot is at least `floor` bytes: no need to encode it
        return Update(ops, ops_bytes)
    tree_bytes = pack(new) if tree_bytes is None else tree_bytes
    if doubled > len(tree_bytes):
        return Update(None, tree_bytes=tree_bytes)
    return Update(ops, ops_bytes)


def _tree_bytes(tree: Node) -> bytes:
    return encode(tree.to_wire())
