"""Patch or snapshot (PROTOCOL.md: a snapshot when the patch would pass half a snapshot)."""

from __future__ import annotations

from .codec import encode
from .diff import Op, diff
from .nodes import Node


def choose_update(
    old: Node,
    new: Node,
    old_parents: dict[str, str | None] | None = None,
    new_parents: dict[str, str | None] | None = None,
) -> list[Op] | None:
    """The ops to send, [] when nothing changed, or None when a snapshot is smaller."""
    ops = diff(old, new, old_parents, new_parents)
    if not ops:
        return ops
    doubled = len(encode(ops)) * 2
    if doubled <= new.floor:  # the snapshot is at least `floor` bytes: no need to encode it
        return ops
    if doubled > len(encode(new.to_wire())):
        return None
    return ops
