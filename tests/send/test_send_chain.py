"""Sends and Activity against real Hardhat nodes: the test plays the browser wallet (the node's
unlocked dev accounts) and the runtime (real services); every send is a real transaction."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devchain.rpc import Rpc, encode_call
from modalcore.services.backend.history import fetch_history
from modalcore.slices import send_tx
from modalcore.views.activity_tab import MONTHS

from .conftest import WALLET_NODE, ChainHarness

pytestmark = pytest.mark.chain

SENDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"  # dev account 1: ETH, DEMO and TUSD
RECEIVER = "0x976EA74026E726554dB657fA54763abd0C3a0aa9"  # dev account 6: ETH only


def connected(info: ChainsInfo, address: str = SENDER) -> ChainHarness:
    d = ChainHarness(info, address)
    d.intent("host", "open")
    d.intent(WALLET_NODE)
    d.pump()  # accounts, chain id, balances
    assert d.model.accounts.get("eip155").status == "connected"
    return d


def token(info: ChainsInfo, symbol: str) -> dict[str, Any]:
    return info.token(31337, symbol)


def fill(d: ChainHarness, key: str | None, amount: str | None, receiver: str | None) -> None:
    d.intent("host", "open")
    d.intent("account/feature/send")
    if key is not None:
        d.intent("send/token")
        d.intent(f"send/token/{key}")
    if amount is not None:
        d.intent("send/amount", "change", {"value": amount})
    if receiver is not None:
        d.intent("send/receiver", "change", {"value": receiver})


def send(d: ChainHarness, key: str, amount: str, receiver: str = RECEIVER) -> None:
    fill(d, key, amount, receiver)
    d.intent("send/preview")
    d.pump()  # the fee estimate
    assert d.model.router.view == "WalletSendPreview", d.model.send.error
    assert d.model.send.fee.fee_wei is not None and d.model.send.fee.error is None
    d.intent("send-preview/send")
    d.pump()  # the wallet sends it; the balance refreshes


def gas_cost(rpc: Rpc, tx_hash: str) -> int:
    receipt = rpc.call("eth_getTransactionReceipt", [tx_hash])
    return int(receipt["gasUsed"], 16) * int(receipt["effectiveGasPrice"], 16)


def test_native_send_moves_the_balance_by_the_amount_plus_gas(devchain: ChainsInfo) -> None:
    d = connected(devchain)
    with devchain.rpc(31337) as rpc:
        sender_before, receiver_before = rpc.balance(SENDER), rpc.balance(RECEIVER)
        send(d, "native", "1.25")
        assert len(d.sent) == 1
        amount = 125 * 10**16
        assert rpc.balance(RECEIVER) - receiver_before == amount
        assert sender_before - rpc.balance(SENDER) == amount + gas_cost(rpc, d.sent[0])
        tx = rpc.call("eth_getTransactionByHash", [d.sent[0]])
        assert (tx["to"].lower(), int(tx["value"], 16), tx["input"]) == (RECEIVER.lower(), amount, "0x")
        after = rpc.balance(SENDER)
    state = d.model.send
    assert (state.token, state.amount, state.receiver, state.loading) == (None, "", "", False)
    assert d.model.accounts.get("eip155").balance == (
        f"{(Decimal(after) / 10**18).quantize(Decimal('0.001'), rounding='ROUND_DOWN'):,f}")
    assert [t.event for t in d.tracks() if t.event.startswith("SEND_")] == ["SEND_INITIATED", "SEND_SUCCESS"]


@pytest.mark.parametrize("symbol,amount,raw", [("DEMO", "12.5", 125 * 10**17), ("TUSD", "3.141592", 3_141_592)])
def test_erc20_send_moves_the_token_balances_exactly(devchain: ChainsInfo, symbol: str, amount: str,
                                                     raw: int) -> None:
    address = token(devchain, symbol)["address"]
    d = connected(devchain)
    with devchain.rpc(31337) as rpc:
        sender_before, receiver_before = rpc.erc20_balance(address, SENDER), rpc.erc20_balance(address, RECEIVER)
        eth_before = rpc.balance(SENDER)
        send(d, address, amount)
        assert rpc.erc20_balance(address, RECEIVER) - receiver_before == raw
        assert sender_before - rpc.erc20_balance(address, SENDER) == raw
        assert eth_before - rpc.balance(SENDER) == gas_cost(rpc, d.sent[0])  # only gas in ETH
        tx = rpc.call("eth_getTransactionByHash", [d.sent[0]])
        assert tx["to"].lower() == address.lower()
        assert tx["input"] == encode_call("transfer(address,uint256)", [RECEIVER, raw])
        new_balance = rpc.erc20_balance(address, SENDER)
    row = next(t for t in d.model.accounts.get("eip155").token_balance if t.address == address)
    assert Decimal(row.quantity_numeric) == Decimal(new_balance).scaleb(-int(row.quantity_decimals))
    assert d.model.router.view == "Account"


@pytest.mark.parametrize("form,message", [
    ({"amount": None}, "An amount and receiver address are required"),
    ({"receiver": None}, "An amount and receiver address are required"),
    # no token picked: Send preselects the native token (AppKit's), still checked against its balance
    ({"key": None, "amount": "1000000"}, "Insufficient funds"),
    ({"receiver": "0x1234"}, "Invalid address"),
    ({"amount": "10000.000001"}, "Insufficient funds"),
    ({"amount": "0"}, "Invalid amount"),
])
def test_each_bad_input_is_refused_and_nothing_reaches_wallet_or_chain(
        devchain: ChainsInfo, form: dict[str, Any], message: str) -> None:
    tusd = token(devchain, "TUSD")["address"]
    fields: dict[str, Any] = {"key": tusd, "amount": "1", "receiver": RECEIVER, **form}
    d = connected(devchain)
    with devchain.rpc(31337) as rpc:
        nonce, block = rpc.nonce(SENDER), rpc.call("eth_blockNumber")
        fill(d, fields["key"], fields["amount"], fields["receiver"])
        d.intent("send/preview")
        d.deliver(send_tx.PressedSend())  # even a send forced past the preview is refused
        d.pump()
        assert d.node("send/error").p["text"] == message
        assert d.effects("eth_sendTransaction") == [] and d.sent == []
        assert (rpc.nonce(SENDER), rpc.call("eth_blockNumber")) == (nonce, block)


def test_user_rejection_in_the_wallet_leaves_the_form_intact(devchain: ChainsInfo) -> None:
    demo = token(devchain, "DEMO")["address"]
    d = connected(devchain)
    d.reject_next = (4001, "User rejected the request.")
    with devchain.rpc(31337) as rpc:
        nonce = rpc.nonce(SENDER)
        send(d, demo, "5")
        assert rpc.nonce(SENDER) == nonce
    state = d.model.send
    assert (state.token, state.amount, state.receiver, state.loading) == (demo, "5", RECEIVER, False)
    assert d.model.router.view == "WalletSend"
    assert d.node("send/error").p["text"] == "Transaction declined in the wallet"


def test_a_socket_dropped_after_the_send_intent_gives_exactly_one_transaction(devchain: ChainsInfo) -> None:
    d = connected(devchain)
    with devchain.rpc(31337) as rpc:
        nonce, receiver_before = rpc.nonce(SENDER), rpc.balance(RECEIVER)
        fill(d, "native", "2", RECEIVER)
        d.intent("send/preview")
        d.pump()
        d.hold_sends = True
        seen = d.session.out_seq  # the socket drops before the client sees the effect
        first = d.intent("send-preview/send", iid="send-intent-1")
        out = d.rejoin(last=seen)
        again = d.intent("send-preview/send", iid="send-intent-1")  # the client retransmits
        assert first == "ok" and again == "ok"
        eids = {f["eid"] for f in d.effects("eth_sendTransaction")}
        assert len(eids) == 1 and [f["eid"] for f in out if f["t"] == "effect"] == list(eids)
        d.hold_sends = False
        d.pump()
        d.answer_last(d.sent[0], eid=eids.pop())  # a duplicated effect result changes nothing
        d.pump()
        assert len(d.sent) == 1
        assert rpc.nonce(SENDER) == nonce + 1
        assert rpc.balance(RECEIVER) - receiver_before == 2 * 10**18
    assert len(d.tracks("SEND_SUCCESS")) == 1


def test_a_request_lost_with_a_reload_is_never_reissued_until_retry(devchain: ChainsInfo) -> None:
    d = connected(devchain)
    with devchain.rpc(31337) as rpc:
        nonce = rpc.nonce(SENDER)
        fill(d, "native", "1", RECEIVER)
        d.intent("send/preview")
        d.pump()
        d.hold_sends = True
        d.intent("send-preview/send")
        d.rejoin(last=None)
        d.pump()  # the re-sync after the reload (eth_accounts, eth_chainId, balances)
        assert d.model.send.pending is not None and d.model.send.pending.status == "lost"
        assert d.find("send-preview/lost/retry") is not None
        d.hold_sends = False
        d.pump()
        assert rpc.nonce(SENDER) == nonce and d.sent == []
        d.intent("send-preview/lost/retry")
        d.pump()
        assert rpc.nonce(SENDER) == nonce + 1 and len(d.sent) == 1


def _activity(d: ChainHarness) -> list[Any]:
    d.now = int(time.time() * 1000)
    d.intent("host", "open")
    d.intent("account/tabs", "select", {"value": "2"})
    d.pump()
    return [n for n in d.session.tree.walk() if n.t == "activity-item"]


def test_activity_lists_the_sends_just_made_in_order_with_amounts_and_grouping(devchain: ChainsInfo) -> None:
    demo, tusd = token(devchain, "DEMO")["address"], token(devchain, "TUSD")["address"]
    d = connected(devchain)
    send(d, "native", "1.25")
    send(d, demo, "12.5")
    send(d, tusd, "3.141592")
    items = _activity(d)
    assert [n.id.rsplit("/", 1)[-1] for n in items[:3]] == list(reversed(d.sent))
    assert [(n.p["title"], n.p["amount"], n.p["subtitle"], n.p["status"]) for n in items[:3]] == [
        ("Sent", "-3.142 TUSD", "To 0x976E…0aa9", "confirmed"),
        ("Sent", "-12.500 DEMO", "To 0x976E…0aa9", "confirmed"),
        ("Sent", "-1.250 ETH", "To 0x976E…0aa9", "confirmed"),
    ]
    assert all(n.p["time"] == "just now" or n.p["time"].endswith("min") for n in items[:3])
    now = datetime.now(UTC)
    groups = [n for n in d.session.tree.walk() if n.t == "group"]
    assert groups[0].id == f"account/activity/group/{now.year}-{now.month:02d}"
    assert groups[0].p["title"] == MONTHS[now.month - 1]
    # the funding the deployer sent to this account comes after, as received transfers
    assert [(n.p["title"], n.p["amount"]) for n in items[3:]] == [
        ("Received", "+10,000.000 TUSD"), ("Received", "+10,000.000 DEMO")]
    # the receiver sees the same three transfers coming in
    r = connected(devchain, RECEIVER)
    incoming = _activity(r)
    assert [(n.p["title"], n.p["amount"], n.p["subtitle"]) for n in incoming] == [
        ("Received", "+3.142 TUSD", "From 0x7099…79C8"),
        ("Received", "+12.500 DEMO", "From 0x7099…79C8"),
        ("Received", "+1.250 ETH", "From 0x7099…79C8"),
    ]


def test_activity_pages_through_more_than_one_page(devchain: ChainsInfo) -> None:
    demo = token(devchain, "DEMO")["address"]
    hashes = []
    with devchain.rpc(31337) as rpc:
        for i in range(12):
            if i % 2:
                receipt = rpc.send_call(SENDER, demo, "transfer(address,uint256)", [RECEIVER, i * 10**18])
            else:
                receipt = rpc.transact({"from": SENDER, "to": RECEIVER, "value": hex(i * 10**15 + 1)})
            hashes.append(receipt["transactionHash"])
    d = connected(devchain)
    first = _activity(d)
    assert len(first) == 10
    assert d.model.history.next is not None
    d.intent("account/activity", "more")
    d.pump()
    items = [n for n in d.session.tree.walk() if n.t == "activity-item"]
    ids = [n.id.rsplit("/", 1)[-1] for n in items]
    assert ids[:12] == list(reversed(hashes))
    assert len(ids) == 14 and len(set(ids)) == 14  # plus the two funding transfers, no repeats
    assert d.model.history.next is None
    assert "on" not in d.node("account/activity").p
    assert items[0].p["amount"] == "-11.000 DEMO" and items[1].p["amount"] == "-0.010 ETH"


async def test_the_indexer_pages_by_cursor_without_gaps_or_repeats(devchain: ChainsInfo) -> None:
    import httpx

    with devchain.rpc(31337) as rpc:
        for i in range(5):
            rpc.transact({"from": SENDER, "to": RECEIVER, "value": hex(10**15 * (i + 1))})
    url = devchain.rpc_urls[31337]
    async with httpx.AsyncClient() as http:
        full = await fetch_history(http, rpc_url=url, address=SENDER, chain="eip155:31337", limit=100)
        pages, cursor = [], None
        while True:
            page = await fetch_history(http, rpc_url=url, address=SENDER, chain="eip155:31337",
                                       cursor=cursor, limit=2)
            pages.append([tx["id"] for tx in page["data"]])
            if page["next"] is None:
                break
            cursor = str(page["next"])
    assert full["next"] is None and len(full["data"]) == 7
    assert [len(p) for p in pages] == [2, 2, 2, 1]
    assert [i for p in pages for i in p] == [tx["id"] for tx in full["data"]]
    newest: dict[str, Any] = full["data"][0]
    assert newest["metadata"]["chain"] == "eip155:31337" and newest["metadata"]["status"] == "confirmed"
    assert newest["transfers"] == [{"fungible_info": {"name": "Ether", "symbol": "ETH", "icon": {"url": ""}},
                                    "direction": "out", "quantity": {"numeric": "0.005"}}]
