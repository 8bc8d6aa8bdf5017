"""Exactly once across crashes for the smart account (issue 38 item 6): an approved send from the
embedded key's smart account is one UserOperation, recorded (signed operation and its hash)
before the bundler gets it. Killed after the bundler took it, the restarted engine answers the
receipt's transaction, looked up by the UserOperation hash; killed between the record and the
send, it sends the very same signed operation (the EntryPoint runs a nonce once), once.

Real parts: Hardhat and the alto bundler (the aachains fixture), the VerifyingPaymaster."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modalcore.core.cmds import Call
from modalcore.engine.persist import load_bytes, session_to_bytes
from modalcore.services.domain.handles import EMBEDDED_RESOLVE, EMBEDDED_SIGN
from modalcore.slices.connecting import Restored
from modalcore.slices.embedded import ApprovalDecided
from modalcore_dev.devchain.pytest_plugin import AaChains
from modalcore_dev.devmail import LocalSmtpServer

from .test_exactly_once_restart import Died, _sign_directly
from .test_smart_account_chain import FUNDS, RECEIVER, CENT, _operations, _rpc, _signed_in
from .world import EmailWorld

pytestmark = pytest.mark.chain


def _restart(world: EmailWorld) -> None:
    session, _ = load_bytes(session_to_bytes(world.h.session))
    world.h.session = session
    world.h.cmds.clear()
    world.h.deliver(Restored())


def _approved(aa: AaChains, tmp_path: Path, smtp: LocalSmtpServer, email: str) -> tuple[EmailWorld, str, Call[Any]]:
    world = _signed_in(aa, tmp_path, smtp, email, sponsored_projects=["test"])
    smart = world.h.model.accounts.get("eip155").address
    assert smart is not None
    _rpc(aa, "hardhat_setBalance", [smart, hex(FUNDS)])
    world.ask_wallet("eth_sendTransaction", [{"to": RECEIVER, "value": hex(CENT)}])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [call] = world.h.pending_calls(EMBEDDED_SIGN)
    world.h.cmds.remove(call)
    return world, smart, call


def test_rule_killed_after_the_bundler_took_it_answers_its_receipt(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, smart, call = _approved(aachains, tmp_path, smtp, "uo-a@example.com")
    lost = world._run(call)  # the operation lands; its answer dies with the process
    assert lost.ok, lost.error
    _restart(world)
    assert not world.h.pending_calls(EMBEDDED_SIGN) and world.h.pending_calls(EMBEDDED_RESOLVE)
    [settled] = world.run_calls()
    assert settled.ok and settled.result == lost.result  # the receipt's transaction, looked up
    assert len(_operations(aachains, smart)) == 1
    assert world.h.model.embedded.request is None and world.h.view != "ApproveTransaction"


def test_rule_killed_between_the_record_and_the_send_sends_the_same_operation_once(
        aachains: AaChains, tmp_path: Path, smtp: LocalSmtpServer) -> None:
    world, smart, call = _approved(aachains, tmp_path, smtp, "uo-b@example.com")
    recorded = world.wallet.intents.record
    kept: list[Any] = []

    def record_then_die(intent: Any) -> None:
        recorded(intent)
        kept.append(intent)
        raise Died()

    world.wallet.intents.record = record_then_die  # type: ignore[method-assign]
    try:
        with pytest.raises(Died):
            _sign_directly(world, call)
    finally:
        world.wallet.intents.record = recorded  # type: ignore[method-assign]
    assert [k.kind for k in kept] == ["userop"] and _operations(aachains, smart) == []
    _restart(world)
    [settled] = world.run_calls()
    assert settled.ok, settled.error
    [operation] = _operations(aachains, smart)
    assert operation["topics"][1] == kept[0].hash  # the very operation recorded
    assert operation["transactionHash"] == settled.result["result"]
    _restart(world)  # nothing pending any more: nothing is sent again
    assert not world.h.pending_calls(EMBEDDED_RESOLVE)
    assert len(_operations(aachains, smart)) == 1
