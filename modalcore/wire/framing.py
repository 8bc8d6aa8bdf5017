"""Patch or snapshot (PROTOCOL.md: a snapshot when the patch would pass half a snapshot)."""

from __future__ import annotations

from dataclasses import dataclass

from .codec import encode
from .diff import Op, carried, diff_nodes, wire_ops
from .nodes import Node


@dataclass(frozen=True)
class Update:
    """What to send for a new tree: `ops` ([] when nothing changed) or None for a snapshot,
    with the msgpack bytes already made while choosing (the frame reuses them)."""

    ops: list[Op] | None
    ops_bytes: bytes | None = None
    tree_wire: object = None
    tree_bytes: bytes | None = None


def choose_update(old: Node, new: Node) -> list[Op] | None:
    """The ops to send, [] when nothing changed, or None when a snapshot is smaller."""
    return choose(old, new).ops


def choose(old: Node, new: Node) -> Update:
    """`choose_update`, keeping what it encoded to measure.

    The subtrees a patch carries whole are at least their `floor` in bytes: when twice that
    already passes the snapshot, the snapshot is sent without building and encoding the patch
    (the choice is the same as measuring both)."""
    ops = diff_nodes(old, new)
    if not ops:
        return Update(ops)
    least = sum(node.floor for node in carried(ops))
    if least * 2 > new.floor:
        wire = new.to_wire()
        tree_bytes = encode(wire)
        if least * 2 > len(tree_bytes):
            return Update(None, tree_wire=wire, tree_bytes=tree_bytes)
        ops_bytes = encode(wire_ops(ops))
        if len(ops_bytes) * 2 > len(tree_bytes):
            return Update(None, tree_wire=wire, tree_bytes=tree_bytes)
        return Update(ops, ops_bytes)
    ops_bytes = encode(wire_ops(ops))
    doubled = len(ops_bytes) * 2
    if doubled <= new.floor:  # the snapshot is at least `floor` bytes: no need to encode it
        return Update(ops, ops_bytes)
    wire = new.to_wire()
    tree_bytes = encode(wire)
    if doubled > len(tree_bytes):
        return Update(None, tree_wire=wire, tree_bytes=tree_bytes)
    return Update(ops, ops_bytes)
