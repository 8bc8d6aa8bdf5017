"""The render edge: the English tree the views drew, in the visitor's language.

Views stay written in English (SPEC's strings, `rules/texts.py`); this pass rewrites the text
props of every node through the catalogue, numbers and month names through Babel, and marks
the root with `lang` and `dir`. A subtree in which nothing changes is returned as the same
object, and a subtree seen before (the view bodies are memoised by identity) maps to the same
translated object, so the diff still skips unchanged parts by identity and drawing again costs
a dictionary hit per node.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ..wire.nodes import Node
from . import formats
from .catalog import ENGLISH, Catalogue, catalogue, direction

# Props that hold words a visitor reads, on any node type.
TEXT_PROPS = frozenset(("text", "title", "subtitle", "label", "placeholder", "message", "alt", "error", "tag",
                        "time"))
# `name` is words only on these (elsewhere it is an icon, a view, a network's or token's name).
NAMED = frozenset(("wallet-item",))
# Amounts as the views write them ('1,234.500 ETH', '$9.99').
NUMBER_PROPS = {"token-item": ("amount", "value"), "activity-item": ("amount",)}
NODES_KEPT = 8192  # translated subtrees remembered per language


class _Translator:
    def __init__(self, language: str) -> None:
        self.language = language
        self.catalogue: Catalogue = catalogue(language)
        self.seen: OrderedDict[int, tuple[Node, Node]] = OrderedDict()

    def node(self, source: Node) -> Node:
        hit = self.seen.get(id(source))
        if hit is not None and hit[0] is source:
            return hit[1]
        children = tuple(self.node(child) for child in source.c)
        props = self.props(source)
        same = props is source.p and all(a is b for a, b in zip(children, source.c, strict=True))
        out = source if same else Node(source.id, source.t, props, children, source.handlers)
        self.seen[id(source)] = (source, out)  # holds `source`: its id cannot be reused meanwhile
        if len(self.seen) > NODES_KEPT:
            self.seen.popitem(last=False)
        return out

    def props(self, source: Node) -> dict[str, Any]:
        changed: dict[str, Any] | None = None
        for key, value in source.p.items():
            new = self.prop(source, key, value)
            if new is not value and new != value:
                if changed is None:
                    changed = dict(source.p)
                changed[key] = new
        return source.p if changed is None else changed

    def prop(self, source: Node, key: str, value: Any) -> Any:
        t = source.t
        if isinstance(value, str) and value:
            if key in TEXT_PROPS or (key == "name" and t in NAMED):
                if t == "group" and key == "title":
                    return formats.month_title(value, self.language) or self.text(value)
                return self.text(value)
            if key in NUMBER_PROPS.get(t, ()):
                return formats.number(value, self.language) or value
        elif key == "items" and isinstance(value, list | tuple):
            return [self.text(item) if isinstance(item, str) else item for item in value]
        return value

    def text(self, value: str) -> str:
        translated = self.catalogue.translate(value)
        if translated is not None:
            return translated
        return formats.number(value, self.language) or value


_TRANSLATORS: dict[str, _Translator] = {}


def localize(tree: Node, language: str) -> Node:
    """`tree` in `language`; English trees are returned as they are."""
    if language == ENGLISH:
        return tree
    translator = _TRANSLATORS.get(language)
    if translator is None:
        translator = _TRANSLATORS[language] = _Translator(language)
    out = translator.node(tree)
    root = dict(out.p)
    root["lang"], root["dir"] = language, direction(language)
    return Node(out.id, out.t, root, out.c, out.handlers)
