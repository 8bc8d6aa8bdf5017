"""`replace` for the model's frozen dataclasses, without re-running `__init__`.

`dataclasses.replace` builds a new instance through `__init__`, paying for every field on each
of the several copies an update makes (the model has ~20 fields). These classes have no
`__post_init__` and no slots, so copying the instance dict and overlaying the changes gives the
same object, several times faster. Unknown field names still raise.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

T = TypeVar("T")
_FIELDS: dict[type, frozenset[str]] = {}


def replace(obj: T, /, **changes: object) -> T:
    cls = type(obj)
    names = _FIELDS.get(cls)
    if names is None:
        if not dataclasses.is_dataclass(obj) or hasattr(cls, "__post_init__") or not hasattr(obj, "__dict__"):
            return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
        names = _FIELDS[cls] = frozenset(f.name for f in dataclasses.fields(obj))
    unknown = changes.keys() - names
    if unknown:
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
    new = object.__new__(cls)
    state = new.__dict__
    state.update(obj.__dict__)
    state.update(changes)
    return new
