"""The outcome an approval shows before the visitor approves (issue 43 items 1 and 4), driven
through a session: an eth_sendTransaction waiting for approval is simulated on the node
(chain_simulate, eth_simulateV1) for at most 1.5 s; until then the tree's outcome is pending;
the node's answer becomes the balance changes and the fee; a failed or late simulation is the
outcome estimated from the call data, never "no changes"; a node that lies changes only what is
drawn, never what is signed."""

from __future__ import annotations

import json

import pytest

from modalcore.core.cmds import Call
from modalcore.embedded.approval_tree import read, render_text
from modalcore.embedded.service import EmbeddedWallet
from modalcore.engine.persist import load_bytes, session_to_bytes
from modalcore.chains.catalog import SIMULATION_MS
from modalcore.flows.simulation import known
from modalcore.rules.limits import MAX_SIMULATION_MS, MIN_SIMULATION_MS
from modalcore.server.approval import tree_bytes
from modalcore.server.config import ConfigError, parse_config
from modalcore.services.domain.handles import CHAIN_SIMULATE, EMBEDDED_SIGN, ESTIMATE_FEE
from modalcore.simulation.outcome import APPROVAL, NATIVE, TRANSFER, CallResult, Log, Simulation, simulated
from modalcore.slices.embedded import ApprovalDecided
from modalcore_dev.devmail import LocalSmtpServer

from ..swap.harness import DEMO
from .test_approval_decoded_tx import APPROVE, ROUTER, USER, params, with_request
from .world import EmailWorld

EMAIL = "sim@example.com"
TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


def _topic(address: str) -> str:
    return "0x" + address[2:].lower().rjust(64, "0")


def _waiting(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> tuple[EmailWorld, str]:
    world = EmailWorld(wallet, smtp)
    me = world.sign_in(EMAIL)
    world.settle_all()
    world.ask_wallet("eth_sendTransaction", [{"from": me, "to": TO, "value": hex(25 * 10**16)}])
    return world, me


def _outcome(world: EmailWorld) -> dict[str, object]:
    outcome = read(tree_bytes(world.h.model))["outcome"]
    assert isinstance(outcome, dict)
    return outcome


def test_rule_a_send_waiting_for_approval_is_simulated_and_pending_until_the_node_answers(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, me = _waiting(wallet, smtp)
    call = world.h.pending_calls(CHAIN_SIMULATE)[-1]
    assert call.args_data["account"] == me
    assert call.args_data["calls"] == [{"to": TO, "value": hex(25 * 10**16), "data": "0x"}]
    assert _outcome(world)["status"] == "pending"
    assert _outcome(world)["note"] == "Simulating…"
    world.h.settle_call(CHAIN_SIMULATE, {"base_fee": 10**9, "calls": [{"ok": True, "gas_used": 21000, "logs": [
        {"address": NATIVE, "topics": [TRANSFER, _topic(me), _topic(TO)], "data": "0x" + format(25 * 10**16, "064x")}]}]})
    outcome = _outcome(world)
    assert outcome["status"] == "simulated"
    assert outcome["changes"] == ["\u22120.25 ETH"]
    assert outcome["fee"] == "≈ 0.000021 ETH"
    assert "\u22120.25 ETH" in render_text(read(tree_bytes(world.h.model)))


def test_rule_a_simulation_late_by_1_5_s_gives_the_estimate_from_the_call_data(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _waiting(wallet, smtp)
    world.h.advance(SIMULATION_MS)
    outcome = _outcome(world)
    assert outcome["status"] == "estimated"
    assert outcome["note"] == "Outcome estimated from the call data"
    assert outcome["changes"] == ["\u22120.25 ETH"]
    assert outcome["fee"] == "Fee unavailable"  # the node priced nothing within the 1.5 s either


def test_rule_a_node_without_eth_simulateV1_gives_the_estimate_not_no_changes(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _waiting(wallet, smtp)
    world.h.settle_call(CHAIN_SIMULATE, ok=False, error="the node does not simulate")
    assert _outcome(world)["status"] == "pending"  # the estimate waits for the node's fee (within the 1.5 s)
    world.h.settle_call(ESTIMATE_FEE, {"gas": "21000", "gas_price": "2000000000", "fee": str(42 * 10**12)})
    outcome = _outcome(world)
    assert outcome["status"] == "estimated"
    assert "No balance changes" not in outcome["changes"]  # type: ignore[operator]
    assert outcome["fee"] == "≈ 0.000042 ETH"


def test_rule_a_node_saying_the_account_cannot_pay_warns_beside_the_estimate(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _waiting(wallet, smtp)
    world.h.settle_call(CHAIN_SIMULATE, {"calls": [], "base_fee": 0, "insufficient": True})
    world.h.settle_call(ESTIMATE_FEE, ok=False, error="insufficient funds for gas * price + value")
    outcome = _outcome(world)
    assert outcome["fee"] == "Fee unavailable"
    assert outcome["status"] == "estimated"
    assert outcome["changes"] == ["\u22120.25 ETH"]
    assert outcome["warnings"] == ["The network says this account cannot pay for this transaction"]


def test_rule_the_estimate_shows_the_fee_the_node_prices_the_call_at(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """Hardhat (no eth_simulateV1): the fee is asked beside the simulation, as the send path
    prices it (eth_estimateGas from the visitor × eth_gasPrice), and is part of the signed tree."""
    world, me = _waiting(wallet, smtp)
    call = world.h.pending_calls(ESTIMATE_FEE)[-1]
    assert call.args_data["tx"] == {"from": me, "to": TO, "value": hex(25 * 10**16), "data": "0x"}
    world.h.settle_call(ESTIMATE_FEE, {"gas": "21000", "gas_price": "1875000000", "fee": str(21000 * 1875000000)})
    assert _outcome(world)["status"] == "pending"  # the fee alone settles nothing: the node may still simulate
    world.h.settle_call(CHAIN_SIMULATE, ok=False, error="the node does not simulate")
    outcome = _outcome(world)
    assert outcome["status"] == "estimated" and outcome["fee"] == "≈ 0.00003937 ETH"
    assert "    Fee ≈ 0.00003937 ETH" in render_text(read(tree_bytes(world.h.model))).splitlines()
    world.h.advance(SIMULATION_MS)  # the timer was cancelled: nothing changes
    assert _outcome(world) == outcome


@pytest.mark.parametrize("fee", [None, {"gas": "0", "gas_price": "0", "fee": "0"}], ids=["refused", "zero"])
def test_rule_the_estimates_fee_lookup_failing_says_fee_unavailable_never_zero(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer, fee: dict[str, str] | None) -> None:
    world, _ = _waiting(wallet, smtp)
    world.h.settle_call(CHAIN_SIMULATE, ok=False, error="the node does not simulate")
    if fee is None:
        world.h.settle_call(ESTIMATE_FEE, ok=False, error="the node refused")
    else:
        world.h.settle_call(ESTIMATE_FEE, fee)
    outcome = _outcome(world)
    assert outcome["status"] == "estimated" and outcome["fee"] == "Fee unavailable"
    assert "    Fee unavailable" in render_text(read(tree_bytes(world.h.model))).splitlines()


def test_rule_a_simulated_outcome_keeps_the_simulations_fee_whatever_the_estimate_says(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, me = _waiting(wallet, smtp)
    world.h.settle_call(CHAIN_SIMULATE, {"base_fee": 10**9, "calls": [{"ok": True, "gas_used": 21000, "logs": []}]})
    world.h.settle_call(ESTIMATE_FEE, {"gas": "1", "gas_price": "1", "fee": "1"})
    assert _outcome(world)["fee"] == "≈ 0.000021 ETH"


def test_rule_a_simulation_answer_beyond_its_bounds_is_not_drawn(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, me = _waiting(wallet, smtp)
    log = {"address": NATIVE, "topics": [TRANSFER, _topic(TO), _topic(me)], "data": "0x" + "f" * 64}
    world.h.settle_call(CHAIN_SIMULATE, {"base_fee": 1, "calls": [{"ok": True, "gas_used": 1, "logs": [log] * 300}]})
    world.h.settle_call(ESTIMATE_FEE, ok=False, error="the node refused")
    assert _outcome(world)["status"] == "estimated"  # 300 logs: the edge refuses the answer


def test_rule_a_lying_simulation_changes_what_is_drawn_never_what_is_signed(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, me = _waiting(wallet, smtp)
    request = world.h.model.embedded.request
    assert request is not None
    before = read(tree_bytes(world.h.model))
    lie = {"address": NATIVE, "topics": [TRANSFER, _topic(TO), _topic(me)], "data": "0x" + format(10**21, "064x")}
    world.h.settle_call(CHAIN_SIMULATE, {"base_fee": 0, "calls": [{"ok": True, "gas_used": 0, "logs": [lie]}]})
    after = read(tree_bytes(world.h.model))
    assert after["outcome"]["changes"] == ["+1000 ETH"]  # the lie is drawn as the node's answer …
    assert after["call"] == before["call"] and after["digest"] == before["digest"]  # … the call is the same
    world.h.deliver(ApprovalDecided(eid=request.eid, approve=True))
    sign = [c for c in world.h.cmds if isinstance(c, Call) and c.service == EMBEDDED_SIGN][-1]
    assert sign.args_data["params"] == request.params  # what is executed is the request hashed
    assert json.loads(sign.args_data["params"])[0]["value"] == hex(25 * 10**16)


def test_a_message_to_sign_is_not_simulated(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    me = world.sign_in(EMAIL)
    world.settle_all()
    world.ask_wallet("personal_sign", ["0x68656c6c6f", me])
    assert world.h.pending_calls(CHAIN_SIMULATE) == []
    assert read(tree_bytes(world.h.model))["outcome"] is None


def test_the_outcome_survives_a_restart_with_the_request(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _waiting(wallet, smtp)
    world.h.advance(SIMULATION_MS)
    loaded, _ = load_bytes(session_to_bytes(world.h.session))
    request = loaded.model.embedded.request
    assert request is not None and request.outcome == world.h.model.embedded.request.outcome  # type: ignore[union-attr]


def test_a_pending_outcome_waiting_for_its_fee_survives_a_restart(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _waiting(wallet, smtp)
    world.h.settle_call(CHAIN_SIMULATE, ok=False, error="the node does not simulate")
    loaded, _ = load_bytes(session_to_bytes(world.h.session))
    assert loaded.model.embedded.request == world.h.model.embedded.request
    assert loaded.model.embedded.request is not None and loaded.model.embedded.request.simulation == "failed"


def test_a_swaps_approval_names_the_router_the_engine_built_the_swap_for() -> None:
    """The modal's swap (issue 43 item 1): its approve's outcome names the router as the rows do."""
    model = with_request("eth_sendTransaction", params(DEMO.address, APPROVE))
    names = known(model, "eip155:31337")
    assert names.names == {ROUTER.lower(): "Uniswap V2 Router"}
    log = Log(DEMO.address.lower(), (APPROVAL, _topic(USER), _topic(ROUTER)), "0x" + "f" * 64)
    outcome = simulated(Simulation((CallResult(True, 46_000, (log,)),), 10**9), USER, [], names)
    assert outcome.changes == ("approves Uniswap V2 Router to spend unlimited DEMO",)


def test_rule_a_call_to_a_contract_the_host_did_not_declare_is_warned(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    declared = "0x" + "ab" * 20
    world = EmailWorld(wallet, smtp, options={"networks": ["eip155:31337"], "contracts": [declared]})
    me = world.sign_in(EMAIL)
    world.settle_all()
    for to, warned in ((declared, False), ("0x" + "cd" * 20, True)):
        world.ask_wallet("eth_sendTransaction", [{"from": me, "to": to, "data": "0x12345678"}])
        world.h.advance(SIMULATION_MS)
        outcome = _outcome(world)
        assert ("This sends to a contract this site did not declare" in outcome["warnings"]) is warned  # type: ignore[operator]
        assert outcome["status"] == "unavailable"  # call data the engine cannot read: never "no changes"
        request = world.h.model.embedded.request
        assert request is not None
        world.h.deliver(ApprovalDecided(eid=request.eid, approve=False))


def _network(**extra: object) -> dict[str, object]:
    return {"name": "Dev Chain 31337", "rpc": ["http://127.0.0.1:8545"],
            "native": {"name": "Ether", "symbol": "ETH", "decimals": 18}, **extra}


def test_rule_a_networks_simulation_ms_is_how_long_its_approvals_wait_for_the_simulation(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """The operator's `[networks."eip155:31337"] simulation_ms = 4000`: still pending after the
    default 1.5 s, the estimate once the network's own bound has passed."""
    config = parse_config({"networks": {"eip155:31337": _network(simulation_ms=4000)}})
    world = EmailWorld(wallet, smtp, known_networks=config.known_networks())
    me = world.sign_in(EMAIL)
    world.settle_all()
    world.ask_wallet("eth_sendTransaction", [{"from": me, "to": TO, "value": hex(25 * 10**16)}])
    world.h.advance(SIMULATION_MS)
    assert _outcome(world)["status"] == "pending"
    world.h.advance(4000 - SIMULATION_MS)
    assert _outcome(world)["status"] == "estimated"


@pytest.mark.parametrize("bound", [MIN_SIMULATION_MS - 1, MAX_SIMULATION_MS + 1, 1500.5])
def test_rule_a_simulation_ms_out_of_its_bounds_is_refused_at_start(bound: object) -> None:
    with pytest.raises(ConfigError, match=r"^networks\.eip155:31337\.simulation_ms: "):
        parse_config({"networks": {"eip155:31337": _network(simulation_ms=bound)}})
