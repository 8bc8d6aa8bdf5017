"""The simulated outcome's decoder (issue 43 items 1 and 4): balance changes for the visitor
from a simulation's logs and traced ETH transfers, unlimited approvals, reverts, the call-data
estimate, and the bounds on what is listed."""

from __future__ import annotations

from eth_abi.abi import encode as abi_encode
from eth_utils.crypto import keccak

from modalcore.simulation.outcome import (
    APPROVAL,
    FEE_UNAVAILABLE,
    MAX_SHOWN,
    NATIVE,
    NO_CHANGES,
    REVERTS,
    TRANSFER,
    UNDECLARED,
    Asset,
    CallResult,
    Known,
    Log,
    Simulation,
    TxCall,
    estimate,
    fee_text,
    simulated,
)

ME = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
POOL = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
TUSD = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
DEMO = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512"
ROUTER = "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0"
KNOWN = Known(Asset("ETH", 18), {TUSD: Asset("TUSD", 6), DEMO: Asset("DEMO", 18)}, {ROUTER: "Uniswap V2 Router"})


def _topic(address: str) -> str:
    return "0x" + address[2:].rjust(64, "0")


def _log(token: str, kind: str, a: str, b: str, value: int) -> Log:
    return Log(token, (kind, _topic(a), _topic(b)), "0x" + format(value, "064x"))


def _sim(*logs: Log, ok: bool = True, gas: int = 21_000, base_fee: int = 10**9) -> Simulation:
    return Simulation((CallResult(ok, gas, tuple(logs)),), base_fee)


def test_a_swap_shows_what_leaves_and_what_arrives_with_the_fee() -> None:
    sim = _sim(_log(NATIVE, TRANSFER, ME, ROUTER, 25 * 10**16), _log(TUSD, TRANSFER, POOL, ME, 199_000_000))
    outcome = simulated(sim, ME.upper().replace("0X", "0x"), [TxCall(ROUTER, 25 * 10**16, "0x")], KNOWN)
    assert outcome.status == "simulated"
    assert outcome.changes == ("\u22120.25 ETH", "+199 TUSD")
    assert outcome.fee == "≈ 0.000021 ETH"
    assert outcome.warnings == ()


def test_an_unlimited_approval_is_named_and_warned_about() -> None:
    outcome = simulated(_sim(_log(DEMO, APPROVAL, ME, ROUTER, 2**256 - 1)), ME, [], KNOWN)
    assert outcome.changes == ("approves Uniswap V2 Router to spend unlimited DEMO",)
    assert outcome.warnings == ("This approves an unlimited allowance of DEMO",)


def test_a_revert_says_so_and_lists_no_changes() -> None:
    outcome = simulated(_sim(_log(TUSD, TRANSFER, POOL, ME, 5), ok=False), ME, [], KNOWN)
    assert outcome.warnings == (REVERTS,)
    assert outcome.changes == ()


def test_transfers_between_others_do_not_count_and_nothing_is_no_changes() -> None:
    outcome = simulated(_sim(_log(TUSD, TRANSFER, POOL, ROUTER, 5)), ME, [], KNOWN)
    assert outcome.changes == (NO_CHANGES,)


def test_at_most_five_changes_then_how_many_more() -> None:
    tokens = [f"0x{i:040x}" for i in range(1, 13)]
    outcome = simulated(_sim(*[_log(t, TRANSFER, POOL, ME, 1) for t in tokens]), ME, [], KNOWN)
    assert len(outcome.changes) == MAX_SHOWN
    assert outcome.more == 12 - MAX_SHOWN
    assert outcome.to_tree()["more"] == 7


def test_an_unknown_token_is_named_by_its_short_address_in_raw_units() -> None:
    outcome = simulated(_sim(_log("0x" + "ab" * 20, TRANSFER, POOL, ME, 1234)), ME, [], KNOWN)
    assert outcome.changes == ("+1234 0xabab…abab",)


def test_a_contract_the_host_did_not_declare_is_warned_about() -> None:
    declared = Known(KNOWN.native, KNOWN.tokens, KNOWN.names, frozenset({POOL}))
    other = TxCall("0x" + "cd" * 20, 0, "0x12345678")
    assert UNDECLARED in simulated(_sim(), ME, [other], declared).warnings
    assert UNDECLARED not in simulated(_sim(), ME, [TxCall(POOL, 0, "0x12345678")], declared).warnings
    assert UNDECLARED not in simulated(_sim(), ME, [other], KNOWN).warnings  # nothing declared


def _call(sig: str, types: list[str], values: list[object]) -> str:
    return "0x" + keccak(text=sig)[:4].hex() + abi_encode(types, values).hex()


def test_the_estimate_reads_value_transfer_and_approve_and_says_it_is_an_estimate() -> None:
    calls = [TxCall(POOL, 10**18, "0x"),
             TxCall(TUSD, 0, _call("transfer(address,uint256)", ["address", "uint256"], [POOL, 2_500_000])),
             TxCall(DEMO, 0, _call("approve(address,uint256)", ["address", "uint256"], [ROUTER, 2**256 - 1]))]
    outcome = estimate(calls, ME, KNOWN)
    assert outcome.status == "estimated"
    assert outcome.to_tree()["note"] == "Outcome estimated from the call data"
    assert outcome.changes == ("\u22121 ETH", "\u22122.5 TUSD", "approves Uniswap V2 Router to spend unlimited DEMO")
    assert outcome.warnings == ("This approves an unlimited allowance of DEMO",)


def test_the_estimate_of_a_swap_counts_its_minimum_out() -> None:
    data = _call("swapExactETHForTokens(uint256,address[],address,uint256)",
                 ["uint256", "address[]", "address", "uint256"], [199_000_000, [DEMO, TUSD], ME, 10**10])
    assert estimate([TxCall(ROUTER, 25 * 10**16, data)], ME, KNOWN).changes == ("\u22120.25 ETH", "+199 TUSD")


def test_call_data_the_engine_cannot_read_is_unavailable_never_no_changes() -> None:
    outcome = estimate([TxCall(POOL, 0, "0xdeadbeef00")], ME, KNOWN)
    assert outcome.status == "unavailable"
    assert outcome.changes == ()
    assert outcome.to_tree()["note"] == "Outcome unavailable"


def test_call_data_that_does_not_fit_its_function_is_unavailable() -> None:
    short = "0x" + keccak(text="transfer(address,uint256)")[:4].hex() + "00" * 40
    long_path = _call("swapExactETHForTokens(uint256,address[],address,uint256)",
                      ["uint256", "address[]", "address", "uint256"], [1, [DEMO] * 9, ME, 1])
    for data in (short, long_path):
        assert estimate([TxCall(TUSD, 0, data)], ME, KNOWN).status == "unavailable"


def test_the_estimates_fee_is_the_nodes_price_in_the_native_currency_never_zero() -> None:
    """Issue 43: the estimate shows the fee too (eth_estimateGas × eth_gasPrice); a fee the node
    would not give is "Fee unavailable", never "≈ 0 ETH"."""
    assert fee_text(21_000 * 1_875_000_000, KNOWN) == "≈ 0.00003937 ETH"
    assert fee_text(3 * 10**18, KNOWN) == "≈ 3 ETH"
    assert fee_text(0, KNOWN) == FEE_UNAVAILABLE == "Fee unavailable"
    assert fee_text(-1, KNOWN) == FEE_UNAVAILABLE
    priced = estimate([TxCall(POOL, 10**18, "0x")], ME, KNOWN, fee_text(42 * 10**12, KNOWN))
    assert (priced.status, priced.fee) == ("estimated", "≈ 0.000042 ETH")
    assert priced.to_tree()["fee"] == "≈ 0.000042 ETH"


def test_an_estimate_without_the_nodes_price_says_fee_unavailable() -> None:
    assert estimate([TxCall(POOL, 10**18, "0x")], ME, KNOWN).fee == "Fee unavailable"
    unreadable = estimate([TxCall(POOL, 0, "0xdeadbeef00")], ME, KNOWN, "≈ 0.0001 ETH")
    assert (unreadable.status, unreadable.fee) == ("unavailable", "≈ 0.0001 ETH")
