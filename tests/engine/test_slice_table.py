"""One slice shape, one list, one table (issue 12 items 1 and 5): the engine's table is built
from `SLICES` and `FLOWS` only, tests build their own, and a message handled twice is an error."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from modalcore.slices.model import Model, Step
from modalcore.core.msg import Msg
from modalcore.core.shape import Slice, Table
from modalcore.engine.update import ENGINE, FLOWS, SLICES, update
from modalcore.enginetest import HARNESS_TABLE, HarnessStepApplied, build_model, table_with
from modalcore.slices.navigation import PressedBack


@dataclass(frozen=True)
class TableTestPinged(Msg):
    pass


def _pinged(model: Model, msg: TableTestPinged, now: int) -> Step:
    return model, []


def test_the_engine_table_is_exactly_its_slices_and_flows() -> None:
    expected = {msg_type for part in (*SLICES, *FLOWS) for msg_type in part.handlers}
    assert set(ENGINE.handlers) == expected
    assert len({part.name for part in (*SLICES, *FLOWS)}) == len(SLICES) + len(FLOWS)


def test_test_messages_never_reach_the_engine_table() -> None:
    table = table_with(Slice("table-test", {TableTestPinged: _pinged}))
    assert TableTestPinged in table.handlers
    assert HarnessStepApplied in HARNESS_TABLE.handlers
    assert TableTestPinged not in ENGINE.handlers
    assert HarnessStepApplied not in ENGINE.handlers


def test_a_message_handled_by_two_slices_is_an_error() -> None:
    with pytest.raises(TypeError, match="PressedBack"):
        Table.of(*SLICES, Slice("again", {PressedBack: _pinged}))


def test_a_result_purpose_claimed_twice_is_an_error() -> None:
    twice = Slice("twice", effect_results={"clipboard": lambda model, msg, now, param: (model, [])})
    with pytest.raises(TypeError, match="clipboard"):
        Table.of(*SLICES, twice)


def test_update_with_a_table_that_lacks_the_message_changes_nothing() -> None:
    model = build_model()
    assert update(model, TableTestPinged(), 0) == (model, [])
    assert update(model, TableTestPinged(), 0, table_with(Slice("t", {TableTestPinged: _pinged}))) == (model, [])
