"""A smart account's request before its approval (issue 43 item 1, UserOperations), driven through
a session: besides the node's eth_simulateV1 of the calls from the account, the engine asks the
bundler to check the operation (`embedded.userop_check`); the approval shows the node's changes
(or the call data's) with the bundler's fee ("Sponsored" when the paymaster would pay), the
bundler's revert with its reason, and says which source gave what; a bundler that fails or is
late is shown as unavailable, within the same 1.5 s. The bundler and the smart accounts' read
are stand-ins here (the real alto on the dev chain: test_userop_outcome_chain.py)."""

from __future__ import annotations

from typing import Any

import pytest

from modalcore.embedded.approval_tree import read, render_text
from modalcore.embedded.service import EmbeddedWallet
from modalcore.engine.persist import load_bytes, session_to_bytes
from modalcore.chains.catalog import SIMULATION_MS
from modalcore.server.approval import tree_bytes
from modalcore.services.domain.handles import CHAIN_SIMULATE, EMBEDDED_SIGN, ESTIMATE_FEE, USEROP_CHECK
from modalcore.simulation.outcome import NATIVE, TRANSFER
from modalcore.slices.embedded import ApprovalDecided
from modalcore_dev.devmail import LocalSmtpServer

from .test_smart_account_session import CHAIN, SMART, _sign_in, _world
from .world import EmailWorld

TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
VALUE = 25 * 10**16
OK = {"status": "ok", "gas": "150000", "fee": str(150_000 * 2 * 10**9), "sponsored": False, "reason": ""}


def _topic(address: str) -> str:
    return "0x" + address[2:].lower().rjust(64, "0")


def _asked(wallet: EmbeddedWallet, smtp: LocalSmtpServer, method: str = "eth_sendTransaction") -> EmailWorld:
    world, _ = _world(wallet, smtp, CHAIN)
    assert _sign_in(world) == SMART
    if method == "eth_sendTransaction":
        world.ask_wallet(method, [{"from": SMART, "to": TO, "value": hex(VALUE)}])
    else:
        world.ask_wallet(method, [{"version": "2.0.0", "chainId": "0x7a69", "from": SMART, "atomicRequired": True,
                                   "calls": [{"to": TO, "value": hex(VALUE)}, {"to": TO, "data": "0x12345678"}]}])
    assert world.h.view == "ApproveTransaction"
    return world


def _outcome(world: EmailWorld) -> dict[str, Any]:
    outcome = read(tree_bytes(world.h.model))["outcome"]
    assert isinstance(outcome, dict)
    return outcome


def _simulated(world: EmailWorld) -> None:
    world.h.settle_call(CHAIN_SIMULATE, {"base_fee": 10**9, "calls": [{"ok": True, "gas_used": 21000, "logs": [
        {"address": NATIVE, "topics": [TRANSFER, _topic(SMART), _topic(TO)], "data": "0x" + format(VALUE, "064x")}]}]})


@pytest.mark.parametrize("method", ["eth_sendTransaction", "wallet_sendCalls"])
def test_rule_a_smart_accounts_request_is_checked_by_the_bundler_not_priced_by_the_node(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer, method: str) -> None:
    world = _asked(wallet, smtp, method)
    [check] = world.h.pending_calls(USEROP_CHECK)
    owner = world.h.model.smart.owner
    calls = world.h.pending_calls(CHAIN_SIMULATE)[-1].args_data["calls"]
    assert check.args_data == {"chain": CHAIN, "owner": owner, "account": SMART, "method": method, "calls": calls}
    assert world.h.pending_calls(ESTIMATE_FEE) == []  # eth_estimateGas from the account is not what it pays


def test_rule_the_fee_of_a_smart_accounts_send_is_the_bundlers_estimate(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _asked(wallet, smtp)
    _simulated(world)
    assert _outcome(world)["status"] == "pending"  # the node answered; the bundler not yet
    world.h.settle_call(USEROP_CHECK, OK)
    outcome = _outcome(world)
    assert outcome["status"] == "simulated" and outcome["changes"] == ["\u22120.25 ETH"]
    assert outcome["fee"] == "≈ 0.0003 ETH"  # 150,000 gas × 2 gwei, not the node's 21,000 × 1 gwei
    assert outcome["note"] == "Outcome simulated by the network; fee and revert check from the bundler"
    assert "    Fee ≈ 0.0003 ETH" in render_text(read(tree_bytes(world.h.model))).splitlines()
    world.h.advance(SIMULATION_MS)  # settled: the timer was cancelled
    assert _outcome(world) == outcome


def test_rule_a_sponsored_operation_costs_the_visitor_nothing_and_says_so(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _asked(wallet, smtp)
    world.h.settle_call(USEROP_CHECK, {**OK, "fee": "0", "sponsored": True})
    _simulated(world)
    assert _outcome(world)["fee"] == "Network fee: Sponsored (you pay 0 ETH)"


def test_rule_a_batch_the_bundler_says_reverts_is_warned_with_its_reason(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _asked(wallet, smtp, "wallet_sendCalls")
    world.h.settle_call(CHAIN_SIMULATE, ok=False, error="the node does not simulate")
    world.h.settle_call(USEROP_CHECK, {"status": "reverted", "gas": "0", "fee": "0", "sponsored": False,
                                       "reason": "ERC20: transfer amount exceeds balance"})
    outcome = _outcome(world)
    assert outcome["warnings"] == [
        "This transaction will fail: the bundler's simulation reverted (ERC20: transfer amount exceeds balance)"]
    assert outcome["changes"] == [] and outcome["fee"] == "Fee unavailable"
    assert outcome["note"] == "Outcome unavailable; fee and revert check from the bundler"


def test_rule_an_account_the_bundler_refuses_is_warned(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _asked(wallet, smtp)
    _simulated(world)
    world.h.settle_call(USEROP_CHECK, {"status": "refused", "gas": "0", "fee": "0", "sponsored": False,
                                       "reason": "AA21 didn't pay prefund"})
    assert _outcome(world)["warnings"] == ["The bundler refuses this transaction (AA21 didn't pay prefund)"]


def test_rule_a_bundler_that_fails_is_shown_unavailable_and_the_visitor_may_still_approve(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _asked(wallet, smtp)
    world.h.settle_call(USEROP_CHECK, ok=False, error="bundler eth_estimateUserOperationGas: unreachable")
    assert _outcome(world)["status"] == "pending"  # the node may still simulate, within the 1.5 s
    world.h.settle_call(CHAIN_SIMULATE, ok=False, error="the node does not simulate")
    outcome = _outcome(world)
    assert outcome["status"] == "estimated" and outcome["changes"] == ["\u22120.25 ETH"]
    assert outcome["note"] == "Outcome estimated from the call data; the bundler's check is unavailable"
    assert outcome["fee"] == "Fee unavailable"
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(eid=request.eid, approve=True))
    assert world.h.pending_calls(EMBEDDED_SIGN)  # approved: the signer is asked, as for the EOA


def test_rule_a_bundler_late_by_1_5_s_is_shown_unavailable(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _asked(wallet, smtp)
    _simulated(world)
    world.h.advance(SIMULATION_MS)
    outcome = _outcome(world)
    assert outcome["status"] == "simulated" and outcome["changes"] == ["\u22120.25 ETH"]
    assert outcome["note"] == "Outcome simulated by the network; the bundler's check is unavailable"
    assert outcome["fee"] == "Fee unavailable"
    world.h.settle_call(USEROP_CHECK, OK)  # too late: nothing changes
    assert _outcome(world) == outcome


def test_a_bundlers_answer_beyond_its_bounds_is_not_drawn(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _asked(wallet, smtp)
    _simulated(world)
    world.h.settle_call(USEROP_CHECK, {**OK, "status": "reverted", "reason": "x" * 10_000})
    outcome = _outcome(world)
    assert outcome["warnings"] == [] and "unavailable" in outcome["note"]


def test_an_operation_waiting_for_the_bundler_survives_a_restart(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _asked(wallet, smtp)
    _simulated(world)
    loaded, _ = load_bytes(session_to_bytes(world.h.session))
    assert loaded.model.embedded.request == world.h.model.embedded.request
    request = loaded.model.embedded.request
    assert request is not None and request.bundler == "asked" and request.held is not None


def test_the_eoas_request_is_not_sent_to_the_bundler(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    me = world.sign_in("eoa@example.com")
    world.settle_all()
    world.ask_wallet("eth_sendTransaction", [{"from": me, "to": TO, "value": hex(VALUE)}])
    assert world.h.pending_calls(USEROP_CHECK) == [] and world.h.pending_calls(ESTIMATE_FEE)
