"""Messages: past-tense events that `update` folds into the model.

Every message is a frozen dataclass subclassing `Msg`; subclasses register themselves by name so
a recorded session can turn them back into objects (`msg_to_data` / `msg_from_data`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import TypeAdapter

_REGISTRY: dict[str, type[Msg]] = {}


@dataclass(frozen=True)
class Msg:
    registry: ClassVar[dict[str, type[Msg]]] = _REGISTRY

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__name__ in _REGISTRY and _REGISTRY[cls.__name__] is not cls:
            raise TypeError(f"two messages are named {cls.__name__}")
        _REGISTRY[cls.__name__] = cls


_ADAPTERS: dict[str, TypeAdapter[Any]] = {}


def _adapter(cls: type[Msg]) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(cls.__qualname__ + "@" + cls.__module__)
    if adapter is None:
        adapter = _ADAPTERS[cls.__qualname__ + "@" + cls.__module__] = TypeAdapter(cls)
    return adapter


def msg_to_data(msg: Msg) -> dict[str, Any]:
    return {"type": type(msg).__name__, "data": _adapter(type(msg)).dump_python(msg, mode="json")}


def msg_from_data(data: dict[str, Any]) -> Msg:
    cls = _REGISTRY.get(data["type"])
    if cls is None:
        raise ValueError(f"unknown message type {data['type']!r}")
    result: Msg = _adapter(cls).validate_python(data["data"])
    return result
