"""Typed results (docs/contributors/where-things-go.md; issue 12 item 2): a call names the message its result
comes back as, the engine's edge validates the raw result into it, and `update` never sees a
purpose string or an untyped result."""

from __future__ import annotations

import logging
from typing import cast

import pytest

from modalcore.enginetest import Harness
from modalcore.core.cmds import CallSettled, EffectSettled, EffectTo, Failure, ReplyTo
from modalcore.core.msg import Msg
from modalcore.core.shape import Table
from modalcore.engine import update as engine_update
from modalcore.engine.named import from_data, to_data
from modalcore.engine.replies import INVALID_RESULT, typed, typed_effect
from modalcore.slices.account_ui import AddressCopyAnswered
from modalcore.slices.balances import Balances, BalancesFetched
from modalcore.slices.model import Model, Step




def test_a_balances_call_names_its_reply_and_the_result_arrives_typed(driver: Harness,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Msg] = []
    real = engine_update.update

    def spy(model: Model, msg: Msg, now: int, table: Table = engine_update.ENGINE) -> Step:
        seen.append(msg)
        return real(model, msg, now, table)

    monkeypatch.setattr("modalcore.engine.session.update", spy)
    driver.connect_wallet()
    call = driver.calls("balances")[-1]
    assert call.reply is BalancesFetched
    driver.settle(driver.calls("balances")[-1], {"native": str(2 * 10**18), "tokens": {}})
    reply = seen[-1]
    assert isinstance(reply, BalancesFetched)
    assert reply.result == Balances(native=str(2 * 10**18), tokens={})
    assert reply.key == call.key
    assert not any(isinstance(msg, CallSettled) for msg in seen)
    assert driver.node("account/balance").p["text"] == "2.000 ETH"


def test_a_result_that_does_not_validate_is_the_typed_failure_logged_once(
        driver: Harness, caplog: pytest.LogCaptureFixture) -> None:
    driver.connect_wallet()
    call = driver.calls("balances")[-1]
    with caplog.at_level(logging.WARNING):
        driver.settle(call, {"tokens": "not a mapping"})
    warnings = [r for r in caplog.records if r.name == "modalcore.engine.replies"]
    assert len(warnings) == 1 and warnings[0].exc_info is None
    assert "BalancesFetched: result did not validate" in warnings[0].getMessage()
    assert driver.model.snack.message == "Token Balance Unavailable"


def test_the_edge_keeps_the_key_and_context_and_turns_failures_typed() -> None:
    failed = typed(CallSettled(ReplyTo(BalancesFetched, "eip155:1:0xabc"), False, None, "boom", {"n": 1}))
    assert failed == BalancesFetched(key="eip155:1:0xabc", failure=Failure("unknown", "boom"), context={"n": "1"})
    empty = typed(CallSettled(ReplyTo(BalancesFetched, "k"), True, None))
    assert isinstance(empty, BalancesFetched) and empty.error == INVALID_RESULT and empty.result is None
    assert empty.failure == Failure("invalid", INVALID_RESULT)


def recorded(msg: Msg, purpose: str) -> Msg:
    """`msg` as a recording written by an older engine names it (its purpose), read back."""
    data = to_data(msg)
    data["data"]["purpose"] = purpose
    return from_data(data, engine_update.ENGINE.messages)


def test_recordings_made_before_typed_results_still_route() -> None:
    legacy = typed(cast(CallSettled, recorded(CallSettled(ReplyTo(BalancesFetched, "eip155:1:0xabc"), True, {"native": 5, "tokens": {}}), "balances|eip155:1:0xabc")))
    assert legacy == BalancesFetched(key="eip155:1:0xabc", result=Balances(native=5, tokens={}))


def test_an_effect_answer_arrives_as_the_reply_the_effect_named() -> None:
    answered = typed_effect(EffectSettled("e3", EffectTo(AddressCopyAnswered, ""), True, None))
    assert answered == AddressCopyAnswered(eid="e3", key="", ok=True, result=None)
    legacy = typed_effect(cast(EffectSettled, recorded(EffectSettled("e4", EffectTo(AddressCopyAnswered), False, error_code=-32603, error_message="timeout"), "clipboard")))
    assert legacy == AddressCopyAnswered(eid="e4", ok=False, error_code=-32603, error_message="timeout",
                                         failure=Failure("timeout", "timeout"))
