"""Send rules (behaviour.md §3 send state, §4 "Send", §5 validation, §8 tracking), sans IO."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from modalcore.enginetest import Harness
from modalcore.rules.format import network_fee
from modalcore.rules.names import ERROR_RESOLVING, no_address_for
from modalcore.slices.model import model_from_data, model_to_data
from modalcore.slices import send_tx
from modalcore.slices.send_name import DEBOUNCE_MS
from modalcore.slices.router import TxEntry

from .conftest import ADDRESS, DEMO, OTHER, TUSD

NATIVE_WEI = 10 * 10**18
DEMO_RAW = str(5000 * 10**18)
TUSD_RAW = str(1234_567890)
HASH = "0x" + "ab" * 32


def ready(d: Harness) -> None:
    d.connect_wallet()
    d.settle(d.calls("balances")[-1], {"native": str(NATIVE_WEI), "tokens": {DEMO.address: DEMO_RAW, TUSD.address: TUSD_RAW}})
    d.intent("host", "open")
    d.intent("account/feature/send")


def fill(d: Harness, token: str | None = "native", amount: str | None = "1.5",
         receiver: str | None = OTHER) -> None:
    if token is not None:
        d.intent("send/token")
        d.intent(f"send/token/{token}")
    if amount is not None:
        d.intent("send/amount", "change", {"value": amount})
    if receiver is not None:
        d.intent("send/receiver", "change", {"value": receiver})


def to_preview(d: Harness, **form: Any) -> None:
    ready(d)
    fill(d, **form)
    d.intent("send/preview")


def send(d: Harness, **form: Any) -> dict[str, Any]:
    to_preview(d, **form)
    d.intent("send-preview/send")
    return d.effects("eth_sendTransaction")[-1]


def test_send_feature_button_opens_wallet_send(driver: Harness) -> None:
    ready(driver)
    assert driver.model.router.view == "WalletSend"
    assert driver.node("header/title").p["text"] == "Send"


def test_the_token_is_picked_from_the_visitors_balances(driver: Harness) -> None:
    ready(driver)
    driver.intent("send/token")
    ids = [n.id for n in driver.node("send/tokens").c]
    assert ids == ["send/token/native", f"send/token/{DEMO.address}", f"send/token/{TUSD.address}"]
    driver.intent(f"send/token/{TUSD.address}")
    assert driver.model.send.token == TUSD.address
    assert driver.find("send/tokens") is None
    assert driver.node("send/token").p["subtitle"] == "Balance: 1,234.567 TUSD"


@pytest.mark.parametrize("form", [
    {"amount": None}, {"receiver": None}, {"amount": None, "receiver": None}, {"amount": "  "},
])
def test_an_amount_and_receiver_address_are_required(driver: Harness, form: dict[str, Any]) -> None:
    to_preview(driver, **form)
    assert driver.model.router.view == "WalletSend"
    assert driver.node("send/error").p["text"] == "An amount and receiver address are required"
    assert driver.effects("eth_sendTransaction") == []


@pytest.mark.parametrize("form,label", [
    ({"amount": None}, "Add amount"),
    ({"amount": None, "receiver": None}, "Add amount"),
    ({"receiver": None}, "Add address"),
    ({"receiver": "   "}, "Add address"),
])
def test_the_preview_button_says_what_the_form_lacks_and_is_disabled(
        driver: Harness, form: dict[str, Any], label: str) -> None:
    """AppKit's send button: 'Select Token' / 'Add Amount' / 'Add Address' and disabled until
    the form is complete (an empty form looked pressable)."""
    ready(driver)
    preview = driver.node("send/preview").p
    assert (preview["text"], preview.get("disabled")) == ("Add amount", True)  # the native token preselected
    fill(driver, **form)
    preview = driver.node("send/preview").p
    assert (preview["text"], preview.get("disabled")) == (label, True)


def test_a_complete_form_offers_preview_send(driver: Harness) -> None:
    ready(driver)
    fill(driver)
    preview = driver.node("send/preview").p
    assert (preview["text"], preview.get("disabled")) == ("Preview send", None)


def test_send_opens_on_the_native_token(driver: Harness) -> None:
    """Issue 39 item 9: as AppKit's, Send opens with the network's native token selected."""
    ready(driver)
    assert driver.node("send/token").p["title"] == "ETH"
    fill(driver, token=None)  # nothing picked: the native token is sent
    driver.intent("send/preview")
    driver.intent("send-preview/send")
    assert int(driver.effects("eth_sendTransaction")[-1]["req"]["params"][0]["value"], 16) == 15 * 10**17


def test_a_token_is_required(driver: Harness) -> None:
    """With no balance read yet there is no native token to preselect."""
    driver.connect_wallet()
    driver.intent("host", "open")
    driver.intent("account/feature/send")
    assert driver.node("send/token").p["title"] == "Select token"
    fill(driver, token=None)
    driver.intent("send/preview")
    assert driver.node("send/error").p["text"] == "A token is required"
    assert driver.model.router.view == "WalletSend"


# (a dotted name such as vitalik.eth is resolved instead: tests/names/test_send_to_name.py)
@pytest.mark.parametrize("receiver", ["0x123", "vitalik", "0x" + "g" * 40, OTHER + "00"])
def test_an_invalid_address_is_refused(driver: Harness, receiver: str) -> None:
    to_preview(driver, receiver=receiver)
    assert driver.node("send/error").p["text"] == "Invalid address"


def test_an_address_without_0x_is_valid_and_sent_with_it(driver: Harness) -> None:
    effect = send(driver, receiver=OTHER[2:].lower())
    assert effect["req"]["params"][0]["to"] == OTHER


@pytest.mark.parametrize("amount", ["0", "abc", "-1", "1e3", "1.0000000000000000001", "0.000"])
def test_an_invalid_amount_is_refused(driver: Harness, amount: str) -> None:
    to_preview(driver, amount=amount)
    assert driver.node("send/error").p["text"] == "Invalid amount"


@pytest.mark.parametrize("token,amount", [("native", "10.000000000000000001"),
                                          (TUSD.address, "1234.567891"), (DEMO.address, "5001")])
def test_an_amount_above_the_balance_is_refused(driver: Harness, token: str, amount: str) -> None:
    to_preview(driver, token=token, amount=amount)
    assert driver.node("send/error").p["text"] == "Insufficient funds"
    assert driver.model.router.view == "WalletSend"


def test_the_whole_balance_is_allowed(driver: Harness) -> None:
    to_preview(driver, token=TUSD.address, amount="1234.56789")
    assert driver.model.router.view == "WalletSendPreview"


def test_the_send_press_validates_again_and_nothing_reaches_the_wallet(driver: Harness) -> None:
    to_preview(driver)
    driver.session.model = replace(driver.model, send=replace(driver.model.send, amount=""))
    driver.intent("send-preview/send")
    assert driver.model.send.error == "An amount and receiver address are required"
    assert driver.model.send.loading is False
    assert driver.effects("eth_sendTransaction") == []
    assert driver.tracks("SEND_INITIATED") == []


def test_editing_the_form_clears_the_error(driver: Harness) -> None:
    to_preview(driver, amount=None)
    driver.intent("send/amount", "change", {"value": "1"})
    assert driver.find("send/error") is None


def test_amount_shows_its_fiat_value(driver: Harness) -> None:
    ready(driver)
    fill(driver, token=DEMO.address, amount="2.5")
    assert driver.node("send/fiat").p["text"] == "$5.00"


def test_max_of_a_token_is_its_whole_balance(driver: Harness) -> None:
    ready(driver)
    fill(driver, token=TUSD.address, amount=None, receiver=None)
    driver.intent("send/max")
    assert driver.model.send.amount == "1234.56789"


def test_max_of_the_native_token_keeps_twice_the_estimated_fee(driver: Harness) -> None:
    ready(driver)
    fill(driver, amount=None)
    driver.intent("send/max")
    call = driver.calls("estimate_fee")[-1]
    assert call.args_data["tx"] == {"from": ADDRESS, "to": OTHER, "value": "0x0", "data": "0x"}
    driver.settle(call, {"gas": "21000", "gas_price": "1000000000", "fee": str(21000 * 10**9)})
    assert driver.model.send.amount == "9.999958"


def test_preview_estimates_the_network_fee(driver: Harness) -> None:
    to_preview(driver, amount="1.5")
    assert driver.model.router.view == "WalletSendPreview"
    assert driver.node("send-preview/fee/value").t == "skeleton"
    call = driver.calls("estimate_fee")[-1]
    assert call.args_data == {"rpc_url": "http://127.0.0.1:8545",
                         "tx": {"from": ADDRESS, "to": OTHER, "value": hex(15 * 10**17), "data": "0x"}}
    driver.settle(call, {"gas": "21000", "gas_price": "1875000000", "fee": str(21000 * 1875000000)})
    assert driver.node("send-preview/fee/value").p["text"] == "~0.00004 ETH"
    assert driver.node("send-preview/amount").p["text"] == "1.5 ETH"


def test_a_token_preview_checks_the_transfer_with_its_interface(driver: Harness) -> None:
    to_preview(driver, token=DEMO.address, amount="1")
    call = driver.calls("estimate_fee")[-1]
    assert call.args_data["token"] == DEMO.address
    driver.settle(call, {"gas": "51000", "gas_price": "1", "fee": "51000", "transfer_ok": False})
    assert driver.node("send-preview/fee/error").p["text"] == "The token contract would refuse this transfer"


def test_a_failed_fee_estimate_is_readable(driver: Harness) -> None:
    to_preview(driver)
    driver.settle(driver.calls("estimate_fee")[-1], ok=False,
                  error="-32000: insufficient funds for gas * price + value")
    assert driver.model.send.fee.error == "Insufficient funds for gas and value"
    driver.intent("header/back")
    driver.intent("send/amount", "change", {"value": "1"})  # a changed form drops the old estimate
    assert driver.model.send.fee.error is None


def test_native_send_is_a_transaction_with_to_value_data(driver: Harness) -> None:
    effect = send(driver, amount="1.5")
    assert effect["kind"] == "eip1193"
    assert effect["req"] == {"connector": "uuid-1", "method": "eth_sendTransaction",
                             "params": [{"from": ADDRESS, "to": OTHER, "value": hex(15 * 10**17), "data": "0x"}]}


def test_erc20_send_calls_transfer_on_the_token_contract(driver: Harness) -> None:
    effect = send(driver, token=TUSD.address, amount="12.345678")
    tx = effect["req"]["params"][0]
    assert tx["to"] == TUSD.address and tx["value"] == "0x0" and tx["from"] == ADDRESS
    assert tx["data"] == ("0xa9059cbb" + OTHER[2:].lower().rjust(64, "0") + hex(12_345_678)[2:].rjust(64, "0"))


def test_native_send_pushes_a_stack_entry_without_view(driver: Harness) -> None:
    send(driver)
    assert driver.model.router.tx_stack == (TxEntry(view=None, go_back=False),)


def test_erc20_send_pushes_a_stack_entry_with_view_account(driver: Harness) -> None:
    send(driver, token=DEMO.address)
    assert driver.model.router.tx_stack == (TxEntry(view="Account", go_back=False),)


def test_loading_turns_on_while_the_wallet_is_asked(driver: Harness) -> None:
    send(driver)
    assert driver.model.send.loading is True
    assert driver.node("send-preview/send").p["busy"] is True


@pytest.mark.parametrize("outcome", [
    {"result": HASH}, {"error": (4001, "User rejected")}, {"error": (-32000, "nonce too low")},
    {"result": "0x1234"}, {"timeout": True}, {"reload": True},
])
def test_loading_is_always_turned_off_at_the_end(driver: Harness, outcome: dict[str, Any]) -> None:
    effect = send(driver)
    if outcome.get("timeout"):
        driver.advance(send_tx.SEND_TIMEOUT_MS)
    elif outcome.get("reload"):
        driver.rejoin(last=None)
    elif "error" in outcome:
        driver.answer_last(code=outcome["error"][0], message=outcome["error"][1], eid=effect["eid"])
    else:
        driver.answer_last(outcome["result"], eid=effect["eid"])
    assert driver.model.send.loading is False


def test_success_resets_the_form_refreshes_the_balance_and_tracks(driver: Harness) -> None:
    effect = send(driver, token=DEMO.address, amount="2")
    balance_calls = len(driver.calls("balances"))
    driver.answer_last(HASH, eid=effect["eid"])
    state = driver.model.send
    assert (state.token, state.amount, state.receiver, state.pending) == (None, "", "", None)
    assert len(driver.calls("balances")) == balance_calls + 1  # forced: the 30 s cache is skipped
    assert driver.model.router.view == "Account"
    assert driver.model.router.tx_stack == ()
    assert driver.model.snack.message == "Transaction sent"
    props = {"isSmartAccount": False, "token": DEMO.address, "amount": "2", "network": "eip155:31337"}
    assert [t.props for t in driver.tracks("SEND_INITIATED")] == [props]
    assert [t.props for t in driver.tracks("SEND_SUCCESS")] == [props]


def test_native_tracking_names_the_symbol(driver: Harness) -> None:
    effect = send(driver, amount="1")
    driver.answer_last(HASH, eid=effect["eid"])
    assert driver.tracks("SEND_SUCCESS")[0].props["token"] == "ETH"
    assert driver.model.router.view == "Account"


@pytest.mark.parametrize("code", [4001, 5000, 5700, 5730, 5760])
def test_user_rejection_leaves_the_form_intact(driver: Harness, code: int) -> None:
    effect = send(driver, token=TUSD.address, amount="3")
    driver.answer_last(code=code, message="User rejected the request.", eid=effect["eid"])
    state = driver.model.send
    assert (state.token, state.amount, state.receiver) == (TUSD.address, "3", OTHER)
    assert driver.model.router.view == "WalletSend"
    assert driver.node("send/error").p["text"] == "Transaction declined in the wallet"
    assert driver.model.router.tx_stack == ()
    assert driver.tracks("SEND_SUCCESS") == []


def test_node_errors_are_readable(driver: Harness) -> None:
    effect = send(driver)
    driver.answer_last(code=-32000, message="sender doesn't have enough funds: insufficient funds for gas", eid=effect["eid"])
    assert driver.model.send.error == "Insufficient funds for gas and value"


def test_a_result_that_is_not_a_transaction_hash_is_an_error(driver: Harness) -> None:
    effect = send(driver)
    driver.answer_last("0x" + "ab" * 31, eid=effect["eid"])
    assert driver.model.send.error == "The wallet returned an invalid transaction hash"
    assert driver.tracks("SEND_SUCCESS") == []


def test_the_chain_is_chosen_by_the_namespace_else_unsupported_chain(driver: Harness) -> None:
    to_preview(driver)
    networks = driver.model.networks
    driver.session.model = replace(driver.model, networks=replace(
        networks, active="bip122:000000000019d6689c085ae165831e93"))
    out = driver.deliver(send_tx.PressedSend())
    assert driver.model.send.error == "Unsupported chain"
    assert driver.model.send.loading is False
    assert [f for f in out if f["t"] == "effect"] == []


def test_without_an_account_nothing_is_sent(driver: Harness) -> None:
    to_preview(driver)
    accounts = driver.model.accounts
    account = accounts.get("eip155")
    driver.session.model = replace(driver.model, accounts=accounts.with_account(
        "eip155", replace(account, address=None, connector_id=None)))
    driver.deliver(send_tx.PressedSend())
    assert driver.model.send.error == "No ActiveCaipAddress found"
    assert driver.effects("eth_sendTransaction") == []


# ----- no double sends


def test_a_second_press_while_waiting_sends_nothing(driver: Harness) -> None:
    send(driver)
    driver.intent("send-preview/send")
    driver.deliver(send_tx.PressedSend())
    assert len(driver.effects("eth_sendTransaction")) == 1


def test_a_retransmitted_send_intent_is_never_applied_twice(driver: Harness) -> None:
    to_preview(driver)
    first = driver.intent("send-preview/send", iid="send-1")
    driver.rejoin(last=driver.session.out_seq)
    again = driver.intent("send-preview/send", iid="send-1")
    assert first == "ok" and again == "ok"
    assert len(driver.effects("eth_sendTransaction")) == 1


def test_a_reconnect_redelivers_the_same_wallet_request_not_a_new_one(driver: Harness) -> None:
    to_preview(driver)
    before = driver.session.out_seq
    driver.intent("send-preview/send", iid="send-1")
    out = driver.rejoin(last=before)  # the client never saw the effect frame
    redelivered = [f for f in out if f["t"] == "effect"]
    assert [f["eid"] for f in redelivered] == [driver.effects("eth_sendTransaction")[0]["eid"]]
    assert driver.model.send.pending is not None and driver.model.send.pending.status == "waiting"


def test_a_request_lost_with_a_reload_is_shown_lost_and_never_reissued(driver: Harness) -> None:
    effect = send(driver)
    out = driver.rejoin(last=None)
    assert [f for f in out if f["t"] == "effect_cancel"] == [
        {"t": "effect_cancel", "s": out[[f["t"] for f in out].index("effect_cancel")]["s"],
         "a": driver.session.in_seq, "eid": effect["eid"]}]
    assert driver.effects("eth_sendTransaction") == [effect]
    pending = driver.model.send.pending
    assert pending is not None and pending.status == "lost"
    alert = driver.node("send-preview/lost/alert")
    assert alert.p["message"].startswith("The wallet request was lost when the page reloaded.")
    assert driver.node("send-preview/lost/retry").p["text"] == "Try again"
    assert driver.find("send-preview/send") is None
    driver.deliver(send_tx.PressedSend())  # the plain send does not re-issue it either
    assert driver.effects("eth_sendTransaction") == [effect]
    assert driver.model.router.tx_stack == ()


def test_a_receiver_names_failed_lookup_reads_error_resolving_and_no_address_reads_so(driver: Harness) -> None:
    """Which of the two the form says comes from a typed flag (`lookup_failed`), not from
    comparing the shown error text (issue 30)."""
    ready(driver)
    fill(driver, receiver="carol.eth")
    driver.advance(DEBOUNCE_MS)
    driver.settle_call("address_of", ok=False, error="the node is down")
    driver.intent("send/preview")
    assert (driver.model.router.view, driver.node("send/error").p["text"]) == ("WalletSend", ERROR_RESOLVING)
    driver.intent("send/receiver", "change", {"value": "dave.eth"})
    driver.advance(DEBOUNCE_MS)
    driver.settle_call("address_of", {"name": "dave.eth", "address": None})
    driver.intent("send/preview")
    assert (driver.model.router.view, driver.node("send/error").p["text"]) == ("WalletSend",
                                                                               no_address_for("dave.eth"))


def test_the_pages_own_time_out_leaves_the_send_lost_not_declined(driver: Harness) -> None:
    """PROTOCOL.md: the page's wait ran out is the answer -32603 "timeout", decoded once at the
    engine's edge into the failure kind `timeout` (issue 30): the send is lost, never re-asked."""
    effect = send(driver)
    driver.answer_last(code=-32603, message="timeout", eid=effect["eid"])
    pending = driver.model.send.pending
    assert pending is not None and pending.status == "lost"
    assert driver.node("send-preview/lost/alert").p["message"].startswith(send_tx.LOST_TIMEOUT)
    assert driver.effects("eth_sendTransaction") == [effect]


def test_a_wallet_error_that_reads_timeout_is_a_refusal_not_a_time_out(driver: Harness) -> None:
    """Only the page's own -32603 "timeout" is a time-out: a wallet's 4001 saying "timeout" is
    the visitor's no, shown on the form (issue 30)."""
    effect = send(driver)
    driver.answer_last(code=4001, message="timeout", eid=effect["eid"])
    assert driver.model.send.pending is None
    assert driver.model.send.error == "Transaction declined in the wallet"


def test_a_late_answer_to_a_lost_request_is_ignored(driver: Harness) -> None:
    effect = send(driver)
    driver.rejoin(last=None)
    driver.answer_last(HASH, eid=effect["eid"])
    assert driver.model.send.pending is not None and driver.model.send.pending.status == "lost"
    assert driver.tracks("SEND_SUCCESS") == []


def test_retry_after_a_loss_asks_the_wallet_once_more(driver: Harness) -> None:
    first = send(driver, token=TUSD.address, amount="1")
    driver.rejoin(last=None)
    # the re-sync after the reload answers first
    driver.answer_last([ADDRESS.lower()])
    driver.answer_last("0x7a69")
    driver.intent("send-preview/lost/retry")
    sends = driver.effects("eth_sendTransaction")
    assert len(sends) == 2 and sends[1]["eid"] != first["eid"]
    assert sends[1]["req"]["params"] == first["req"]["params"]
    driver.intent("send-preview/send")
    assert len(driver.effects("eth_sendTransaction")) == 2
    driver.answer_last(HASH, eid=sends[1]["eid"])
    assert driver.model.send.pending is None
    assert len(driver.tracks("SEND_SUCCESS")) == 1


def test_discarding_a_lost_request_keeps_the_form(driver: Harness) -> None:
    send(driver, amount="2")
    driver.rejoin(last=None)
    driver.answer_last([ADDRESS.lower()])
    driver.answer_last("0x7a69")
    driver.intent("send-preview/lost/discard")
    assert driver.model.send.pending is None
    assert driver.model.send.amount == "2"
    assert driver.find("send-preview/send") is not None


def test_a_wallet_that_never_answers_is_shown_as_lost(driver: Harness) -> None:
    send(driver)
    driver.advance(send_tx.SEND_TIMEOUT_MS)
    assert driver.model.send.pending is not None and driver.model.send.pending.status == "lost"
    assert driver.model.send.pending is not None and driver.model.send.pending.reason == "The wallet did not answer in time"


def test_a_network_switch_resets_the_form_but_not_a_waiting_request(driver: Harness) -> None:
    send(driver)
    driver.intent("host", "switch_network", {"network": "eip155:31338"})
    driver.answer_last(None)  # wallet_switchEthereumChain
    assert driver.model.networks.active == "eip155:31338"
    assert driver.model.send.amount == ""
    assert driver.model.send.pending is not None and driver.model.send.loading is True
    driver.deliver(send_tx.PressedSend())
    assert len(driver.effects("eth_sendTransaction")) == 1


def test_send_state_survives_persistence(driver: Harness) -> None:
    send(driver, token=TUSD.address)
    driver.rejoin(last=None)
    model = driver.model
    assert model_from_data(model_to_data(model)) == model


def test_a_successful_send_refreshes_the_activity_list(driver: Harness) -> None:
    ready(driver)
    driver.intent("header/back")
    driver.intent("account/tabs", "select", {"value": "2"})
    driver.settle(driver.calls("history")[-1], {"data": [], "next": None})
    calls = len(driver.calls("history"))
    driver.intent("account/feature/send")
    fill(driver)
    driver.intent("send/preview")
    driver.intent("send-preview/send")
    driver.answer_last(HASH, eid=driver.effects("eth_sendTransaction")[-1]["eid"])
    assert driver.model.router.view == "Account"
    assert len(driver.calls("history")) == calls + 1
    assert driver.model.history.loading is True


def test_the_review_names_the_sending_account_by_its_profile_name(driver: Harness) -> None:
    """The review's From row reads 'alice.eth' beside the truncated address, as the Account view
    and the connect button do, not the address alone."""
    ready(driver)
    fill(driver)
    accounts = driver.model.accounts
    named = replace(accounts.get("eip155"), profile_name="alice.eth")
    driver.session.model = replace(driver.model, accounts=accounts.with_account("eip155", named))
    driver.intent("send/preview")
    assert driver.node("send-preview/from").p["subtitle"] == "alice.eth"


def test_a_fee_below_a_cent_reads_less_than_a_cent_not_zero() -> None:
    assert network_fee(Decimal("0.000005"), 150.0, "SOL") == "<$0.01"
    assert network_fee(Decimal("0.00021"), 2000.0, "ETH") == "~$0.42"
    assert network_fee(Decimal("0.0000211"), None, "ETH") == "~0.000022 ETH"
    assert network_fee(Decimal(0), 2000.0, "ETH") == "~$0.00"
