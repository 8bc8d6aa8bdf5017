"""One slice shape, one list, one table (issue 12 items 1 and 5): the engine's table is built
from `SLICES` and `FLOWS` only, tests build their own, and a message handled twice is an error."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from modalcore.slices.account_ui import AddressCopyAnswered

from modalcore.slices.model import Model, Step
from modalcore.core.cmds import CallSettled, EffectSettled
from modalcore.core.msg import Msg, msg_from_data, msg_to_data
from modalcore.core.shape import On, Slice, Table
from modalcore.engine.update import ENGINE, FLOWS, SLICES, update
from modalcore.enginetest import HARNESS_TABLE, HarnessStepApplied, build_model, table_with
from modalcore.slices.navigation import PressedBack


@dataclass(frozen=True)
class TableTestPinged(Msg):
    pass


def _pinged(model: Model, msg: TableTestPinged, now: int) -> Step:
    return model, []


def _any(model: Model, msg: Msg, now: int) -> Step:
    return model, []


def test_the_engine_table_is_exactly_its_slices_and_flows() -> None:
    expected = {on.msg_type for part in (*SLICES, *FLOWS) for on in part.handlers}
    assert set(ENGINE.handlers) == expected
    assert len({part.name for part in (*SLICES, *FLOWS)}) == len(SLICES) + len(FLOWS)


def test_test_messages_never_reach_the_engine_table() -> None:
    table = table_with(Slice("table-test", (On(TableTestPinged, _pinged),)))
    assert TableTestPinged in table.handlers
    assert HarnessStepApplied in HARNESS_TABLE.handlers
    assert TableTestPinged not in ENGINE.handlers
    assert HarnessStepApplied not in ENGINE.handlers


def test_a_message_handled_by_two_slices_is_an_error() -> None:
    with pytest.raises(TypeError, match="PressedBack"):
        Table.of(*SLICES, Slice("again", (On(PressedBack, _any),)))


def test_a_result_claimed_twice_is_an_error() -> None:
    twice = Slice("twice", (On(AddressCopyAnswered, lambda model, msg, now: (model, [])),))
    with pytest.raises(TypeError, match="AddressCopyAnswered"):
        Table.of(*SLICES, twice)


def test_update_with_a_table_that_lacks_the_message_changes_nothing() -> None:
    model = build_model()
    assert update(model, TableTestPinged(), 0) == (model, [])
    assert update(model, TableTestPinged(), 0, table_with(Slice("t", (On(TableTestPinged, _pinged),)))) == (model, [])


def test_message_names_come_from_the_table_not_from_imports() -> None:
    """Recordings and stored timers name messages; the names resolve in the table built from the
    slice list (issue 12 item 1): a message no slice handles, merely imported, is unknown."""
    data = msg_to_data(TableTestPinged())
    with pytest.raises(ValueError, match="unknown message type 'TableTestPinged'"):
        msg_from_data(data, ENGINE.messages)
    table = table_with(Slice("t", (On(TableTestPinged, _pinged),)))
    assert msg_from_data(data, table.messages) == TableTestPinged()
    assert ENGINE.messages.get("PressedBack") is PressedBack
    assert set(ENGINE.messages.by_name.values()) == {*ENGINE.handlers, *ENGINE.guards, CallSettled, EffectSettled}


def test_two_messages_of_one_name_in_one_table_are_an_error() -> None:
    @dataclass(frozen=True)
    class PressedBack(Msg):  # same name as navigation's, another class
        pass

    with pytest.raises(TypeError, match="two messages are named PressedBack"):
        Table.of(*SLICES, Slice("clash", (On(PressedBack, _any),)))
