"""The render edge: the English tree the views drew, in the visitor's language.

Views stay written in English (behaviour.md's strings, `rules/texts.py`); this pass rewrites the text
props of every node through the catalogue, numbers and month names through Babel, and marks
the root with `lang` and `dir`. A subtree in which nothing changes is returned as the same
object, and a subtree seen before (the view bodies are memoised by identity) maps to the same
translated object, so the diff still skips unchanged parts by identity and drawing again costs
a dictionary hit per node.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from ..wire.nodes import Node
from ..wire.registry import ALLOWED
from . import formats
from .catalog import ENGLISH, Catalogue, catalogue, direction

# Props that hold words a visitor reads, on any node type.
TEXT_PROPS = frozenset(("text", "title", "subtitle", "label", "placeholder", "message", "alt", "error", "tag",
                        "time"))
# `name` is words only on these (elsewhere it is an icon, a view, a network's or token's name).
NAMED = frozenset(("wallet-item",))
# Amounts as the views write them ('1,234.500 ETH', '$9.99').
NUMBER_PROPS = {"token-item": ("amount", "value"), "activity-item": ("amount",)}
NODES_KEPT = 2048  # translated subtrees remembered per language (shared by the sessions)


def _plan(t: str, props: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """What to do with each prop of a node type: translate its words, format its month or
    amount, translate each item; props not listed are left as they are."""
    plan = []
    for key in props:
        if t == "group" and key == "title":
            plan.append((key, "month"))
        elif key in TEXT_PROPS or (key == "name" and t in NAMED):
            plan.append((key, "text"))
        elif key in NUMBER_PROPS.get(t, ()):
            plan.append((key, "number"))
        elif key == "items":
            plan.append((key, "items"))
    return tuple(plan)


# per node type, from the registry: the walk reads only the props that can hold words
_TRANSLATABLE = {t: _plan(t, allowed) for t, allowed in ALLOWED.items()}


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

    def props(self, source: Node) -> dict[str, object]:
        p = source.p
        changed: dict[str, object] | None = None
        for key, kind in _TRANSLATABLE.get(source.t, ()):
            value = p.get(key)
            if not value:
                continue
            if kind == "text" and isinstance(value, str):
                new: object = self.text(value)
            elif kind == "month" and isinstance(value, str):
                new = formats.month_title(value, self.language) or self.text(value)
            elif kind == "number" and isinstance(value, str):
                new = formats.number(value, self.language) or value
            elif kind == "items" and isinstance(value, list | tuple):
                new = [self.text(item) if isinstance(item, str) else item for item in value]
            else:
                continue
            if new != value:
                if changed is None:
                    changed = dict(p)
                changed[key] = new
        return p if changed is None else changed

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
