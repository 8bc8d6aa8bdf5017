"""What a visitor sees in a tree: the view, whether the modal is open, the texts on screen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

TEXT_PROPS = ("text", "title", "subtitle", "name", "amount", "message")  # `label` is for screen readers
NOT_TEXT = ("view", "icon", "header")  # a view's name, an icon's name, the header's title (drawn by header/title)


def _shown(node: dict[str, Any], root: bool) -> Iterator[dict[str, Any]]:
    props = node.get("p") or {}
    if props.get("hidden") is True or (not root and props.get("open") is False):
        return  # not drawn (a hidden part, a closed snackbar or sheet)
    yield node
    for child in node.get("c") or ():
        yield from _shown(child, False)


def texts_on_screen(tree: dict[str, object] | None) -> list[str]:
    """Every non-empty string a visitor could read, in document order; none while closed."""
    if tree is None or not is_open(tree):
        return []
    texts = []
    for node in _shown(tree, True):
        props = node.get("p") or {}
        for key in TEXT_PROPS:
            value = props.get(key)
            if isinstance(value, str) and value.strip() and node.get("t") not in NOT_TEXT:
                texts.append(value)
    return texts


def view_of(tree: dict[str, Any] | None) -> str:
    if tree is None:
        return ""
    return str((tree.get("p") or {}).get("view") or "")


def is_open(tree: dict[str, Any] | None) -> bool:
    return tree is not None and (tree.get("p") or {}).get("open") is not False


def shown_ids(tree: dict[str, object] | None) -> set[str]:
    return {str(node["id"]) for node in _shown(tree, True)} if tree is not None else set()
