"""A model slice made of plain fields only (bool, int, str, None, their Literals and unions) is
packed for a save as the map of its fields, without pydantic: the same bytes as pydantic's
python-mode dump (which returns such values as they are), at a fraction of the cost (a save
packs the slices a step replaced: the modal's on every open and close). Held to pydantic's dump
by tests/engine/test_flat_slice_pack.py."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from functools import cache
from types import UnionType
from typing import Literal, Union, get_args, get_origin, get_type_hints

from ..slices.model import Model

Flat = tuple[tuple[str, ...], type, Callable[[object], tuple[object, ...]]]

_PLAIN: frozenset[object] = frozenset((bool, int, str, type(None)))


def _plain(hint: object) -> bool:
    """A field type whose values pydantic's python-mode dump returns as they are: bool, int,
    str or None, a union or Literal of those (floats are left to pydantic)."""
    if hint in _PLAIN:
        return True
    origin = get_origin(hint)
    if origin is Literal:
        return all(type(arg) in _PLAIN for arg in get_args(hint))
    return origin in (Union, UnionType) and all(_plain(arg) for arg in get_args(hint))


@cache
def flat_getters() -> tuple[Flat | None, ...]:
    """For every field of the model whose slice is a dataclass of plain fields only (`_plain`):
    its field names, its class and a getter of their values in one C call; else None. Such a
    slice is packed as the map of its fields without pydantic, byte for byte its dump (a test
    holds every save to a full pydantic pack)."""
    hints = get_type_hints(Model)
    out: list[Flat | None] = []
    for f in fields(Model):
        kind = hints[f.name]
        if not (isinstance(kind, type) and is_dataclass(kind)):
            out.append(None)
            continue
        own = get_type_hints(kind)
        names = tuple(g.name for g in fields(kind))
        if len(names) < 2 or not all(_plain(own[name]) for name in names):
            out.append(None)
            continue
        out.append((names, kind, operator.attrgetter(*names)))
    return tuple(out)
