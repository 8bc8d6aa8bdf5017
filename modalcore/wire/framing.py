"""Patch or snapshot (PROTOCOL.md: a snapshot when the patch would pass half a snapshot)."""

from __future__ import annotations

from .codec import encode
from .diff import Op, diff
from .nodes import Node


def choose_update(old: Node, new: Node) -> list[Op] | None:
    """The ops to send, [] when nothing changed, or None when a snapshot is smaller."""
    ops = diff(old, new)
    if not ops:
        return ops
    if len(encode(ops)) * 2 > len(encode(new.to_wire())):
        return None
    return ops
