"""The tree a client holds, rebuilt from frames, and differences between two trees in words:
node id paths and prop names (`snackbar/message: 'Transaction sent' → 'Transaction submitted'`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..wire.diff import apply
from .words import quote

ARROW = "→"


class TreeTracker:
    """Follows snapshots and patches; `tree` is None before the first snapshot."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] | None = None
        self.broken = ""

    def feed(self, frame: object) -> None:
        if not isinstance(frame, dict):
            return
        if frame.get("t") == "snapshot":
            self.tree, self.broken = frame.get("tree"), ""
        elif frame.get("t") == "patch" and self.tree is not None:
            try:
                self.tree = apply(self.tree, frame.get("ops") or [])
            except (KeyError, IndexError, ValueError, TypeError) as error:
                self.tree, self.broken = None, f"a patch does not apply ({error!r})"


def _index(tree: dict[str, object] | None) -> dict[str, tuple[dict[str, Any], str | None]]:
    found: dict[str, tuple[dict[str, object], str | None]] = {}

    def walk(node: dict[str, Any], parent: str | None) -> None:
        found[str(node.get("id"))] = (node, parent)
        for child in node.get("c") or ():
            walk(child, str(node.get("id")))

    if tree is not None:
        walk(tree, None)
    return found


def json_diff(old: object, new: object, path: str = "") -> Iterator[str]:
    """`path: old → new` for every leaf that differs (dicts by key, lists by position)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in new:
                yield f"{sub}: {quote(old[key])} {ARROW} (absent)"
            elif key not in old:
                yield f"{sub}: (absent) {ARROW} {quote(new[key])}"
            elif old[key] != new[key]:
                yield from json_diff(old[key], new[key], sub)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for position, (a, b) in enumerate(zip(old, new, strict=True)):
            if a != b:
                yield from json_diff(a, b, f"{path}[{position}]")
    elif old != new:
        yield f"{path or '(value)'}: {quote(old)} {ARROW} {quote(new)}"


def _summary(node: dict[str, Any]) -> str:
    props = node.get("p") or {}
    text = next((props[k] for k in ("text", "title", "name", "message", "label")
                 if isinstance(props.get(k), str) and props[k]), None)
    return f"{node.get('t')} {quote(text)}" if text is not None else str(node.get("t"))


def tree_diff(old: dict[str, object] | None, new: dict[str, object] | None) -> list[str]:
    """Differences from `old` to `new`: `id/prop: a → b`, `+ id (type 'text')` for a node only
    in `new`, `- id` for one only in `old`, and children moved, in `new`'s document order."""
    if old is None or new is None:
        if old == new:
            return []
        return [f"tree: {'(none)' if old is None else 'a tree'} {ARROW} {'(none)' if new is None else 'a tree'}"]
    before, after = _index(old), _index(new)
    lines: list[str] = []
    for node_id, (node, parent) in after.items():
        if node_id not in before:
            if parent is None or parent in before:  # report the top of an added subtree only
                lines.append(f"+ {node_id} ({_summary(node)}) in {parent}")
            continue
        previous, previous_parent = before[node_id]
        if previous.get("t") != node.get("t"):
            lines.append(f"{node_id}: type {previous.get('t')} {ARROW} {node.get('t')}")
        lines.extend(f"{node_id}/{line}" for line in json_diff(previous.get("p") or {}, node.get("p") or {}))
        if previous_parent != parent:
            lines.append(f"{node_id}: moved from {previous_parent} to {parent}")
        old_kids = [str(c.get("id")) for c in previous.get("c") or () if str(c.get("id")) in after]
        new_kids = [str(c.get("id")) for c in node.get("c") or () if str(c.get("id")) in before]
        common_old = [k for k in old_kids if k in new_kids]
        common_new = [k for k in new_kids if k in old_kids]
        if common_old != common_new:
            lines.append(f"{node_id}: children order {', '.join(common_old)} {ARROW} {', '.join(common_new)}")
    for node_id, (node, parent) in before.items():
        if node_id not in after and (parent is None or parent in after):
            lines.append(f"- {node_id} ({_summary(node)}) from {parent}")
    return lines


def tree_lines(tree: dict[str, object] | None) -> list[str]:
    """The tree, one node a line, indented: `id  type  prop=value ...`."""
    if tree is None:
        return ["(no tree yet)"]
    lines: list[str] = []

    def walk(node: dict[str, Any], depth: int) -> None:
        props = node.get("p") or {}
        shown = " ".join(f"{k}={quote(v, 50)}" for k, v in props.items() if k != "on")
        actions = ", ".join(sorted(k for k, v in (props.get("on") or {}).items() if v is not None))
        on = f"  on: {actions}" if actions else ""
        lines.append(f"{'  ' * depth}{node.get('id')}  [{node.get('t')}]  {shown}{on}".rstrip())
        for child in node.get("c") or ():
            walk(child, depth + 1)

    walk(tree, 0)
    return lines
