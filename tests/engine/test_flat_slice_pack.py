"""A save packs a slice of plain fields (bool, int, str, None, their Literals and unions) as the
map of its fields, without pydantic (engine/persist.py `_dumped`). Rule: for every such slice,
with its default values and with every field set to another value of its type, the bytes are
exactly the msgpack of pydantic's dump, which is what a save wrote before and what loads."""

from __future__ import annotations

import dataclasses
from typing import Literal, get_args, get_origin, get_type_hints

from modalcore.engine.flatpack import flat_getters
from modalcore.engine.persist import _dumped, _field_adapters
from modalcore.slices.model import Model
from modalcore.wire.codec import encode


def _other(hint: object, now: object) -> object:
    """A value of type `hint` other than `now` (the first that differs)."""
    if get_origin(hint) is Literal:
        choices: tuple[object, ...] = get_args(hint)
    elif get_args(hint):
        choices = tuple(value for arg in get_args(hint) for value in (_other(arg, now),))
    elif hint is bool:
        choices = (True, False)
    elif hint is int:
        choices = (7, 0)
    elif hint is str:
        choices = ("x", "")
    else:
        choices = (None,)
    return next((value for value in choices if value != now or type(value) is not type(now)), choices[0])


def test_rule_a_flat_slice_packs_as_pydantic_dumps_it() -> None:
    model = Model()
    flat = [(index, name) for index, ((name, _, _), getter) in enumerate(zip(_field_adapters(), flat_getters(), strict=True))
            if getter is not None]
    assert {"modal", "snack"} <= {name for _, name in flat}  # the hot ones of a cycle are flat
    for index, name in flat:
        adapter = _field_adapters()[index][2]
        value = getattr(model, name)
        hints = get_type_hints(type(value))
        variants = [value] + [dataclasses.replace(value, **{f.name: _other(hints[f.name], getattr(value, f.name))})
                              for f in dataclasses.fields(value)]
        for each in variants:
            assert _dumped(index, each) == encode(adapter.dump_python(each, mode="python")), (name, each)
