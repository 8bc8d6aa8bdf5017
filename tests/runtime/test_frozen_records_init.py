"""The frozen records made on every press (`Step`, `FrameIn`, `TrackedEvent`, `StoredEvent`) fill
their fields with their own `__init__` (a frozen dataclass's sets each through
`object.__setattr__`, ~1 k instructions a field). Rule: each is still the dataclass it declares:
every field set from its argument (positional or by name), the defaults as declared (a fresh
mapping each time), equal and hashable by its fields, and frozen."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from modalcore.ports.analytics import TrackedEvent
from modalcore.ports.observe import Step
from modalcore.runtime.runner_inputs import FrameIn
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.store.base import StoredEvent
from modalcore.wire.frames import Env


def _values(record: object) -> dict[str, Any]:
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}  # type: ignore[arg-type]


@pytest.mark.parametrize("cls, args", [
    (Step, ("s1", 5, "before", "after", "cause", ["frame"], ["cmd"], {"e1": "to"})),
    (FrameIn, ("frame", "outlet")),
    (TrackedEvent, ("s1", "p1", "OPEN", 5, {"k": 1}, "id", "0xabc", "https://a.example", "error")),
    (StoredEvent, ("id", "p1", "s1", "OPEN", 5, b"{}")),
])
def test_rule_fields_set_positionally_and_by_name(cls: type, args: tuple[object, ...]) -> None:
    names = [f.name for f in dataclasses.fields(cls)]
    positional, named = cls(*args), cls(**dict(zip(names, args)))
    assert _values(positional) == dict(zip(names, args)) == _values(named)
    assert positional == named
    assert dataclasses.replace(positional) == positional
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(positional, names[0], "other")


def test_rule_defaults_are_the_declared_ones() -> None:
    model = initial_model("p", "http://localhost:8000", parse_options({}), Env(), [])
    step, again = Step("s1", 5, model, model, None, [], []), Step("s1", 5, model, model, None, [], [])
    assert step.effects_before == {} and step.effects_before is not again.effects_before
    event = TrackedEvent("s1", "p1", "OPEN", 5)
    assert (event.props, event.event_id, event.address, event.url, event.kind) == ({}, "", "", "", "track")
    assert event.props is not TrackedEvent("s1", "p1", "OPEN", 5).props
