"""Messages: past-tense events that `update` folds into the model.

Every message is a frozen dataclass subclassing `Msg`. Nothing registers itself: a recorded
session (and a stored timer, and a reply's purpose) names messages by class name, and the names
are looked up in an explicit `MessageTypes` table, which the engine builds from its slice list
(`core/shape.Table.messages`; a test's own table holds its own messages).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from pydantic import TypeAdapter


@dataclass(frozen=True)
class Msg:
    pass


@dataclass(frozen=True)
class MessageTypes:
    """Message class name -> class: how a recording's, a stored timer's or a reply's name turns
    back into a type. Two different classes of one name are refused (`TypeError`)."""

    by_name: Mapping[str, type[Msg]] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, types: Iterable[type[Msg]]) -> MessageTypes:
        by_name: dict[str, type[Msg]] = {}
        for msg_type in types:
            known = by_name.setdefault(msg_type.__name__, msg_type)
            if known is not msg_type:
                raise TypeError(f"two messages are named {msg_type.__name__} "
                                f"({known.__module__} and {msg_type.__module__})")
        return cls(MappingProxyType(by_name))

    def get(self, name: str) -> type[Msg] | None:
        return self.by_name.get(name)


_ADAPTERS: dict[type[Msg], TypeAdapter[Any]] = {}


def _adapter(cls: type[Msg]) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


def msg_to_data(msg: Msg) -> dict[str, object]:
    return {"type": type(msg).__name__, "data": _adapter(type(msg)).dump_python(msg, mode="json")}


def msg_from_data(data: dict[str, Any], types: MessageTypes) -> Msg:
    cls = types.get(data["type"])
    if cls is None:
        raise ValueError(f"unknown message type {data['type']!r}")
    result: Msg = _adapter(cls).validate_python(data["data"])
    return result
