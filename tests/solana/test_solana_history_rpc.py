"""Issue 28 item 7: the Solana history reader against a configured RPC: the exact requests it sends
(`getSignaturesForAddress` with limit, commitment and the cursor as `before`; one `getTransaction`
per signature, jsonParsed, accepting v0 transactions) and how it reads a node's answers; and the
dev chain's own `getSignaturesForAddress` / `getTransaction` (pages, encodings, bounds)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from solders.keypair import Keypair

from modalcore.services.backend.history import HistoryError
from modalcore.services.backend.solana_history import fetch_solana_history
from modalcore.slices.history import parse_transaction
from modalcore_dev.solana_devchain.ledger import DevLedger
from modalcore_dev.solana_devchain.rpc import DevRpc, RpcError

from .helpers import SOL

ME = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
THEM = "HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH"
MY_USDC = "7UX2i7SucgLMQcfZ75s3VXmZZY4YRUyJN9X1RgfMoDUi"
THEIR_USDC = "Fxk8DkT7UbiFj5nD7Ffx3hjUHR1sEPMYBpvsDmxsyZri"
USDC = "EPjFWdd5AufqSSqeM2qN1xyybapC8G4wEGGkZwyTDt1v"
TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
SIG_1, SIG_2 = "5" + "j" * 87, "4" + "k" * 87


def _balance(index: int, owner: str, amount: int) -> dict[str, Any]:
    return {"accountIndex": index, "mint": USDC, "owner": owner, "programId": TOKEN_PROGRAM,
            "uiTokenAmount": {"amount": str(amount), "decimals": 6, "uiAmount": amount / 1e6,
                              "uiAmountString": str(amount / 1e6)}}


# What a mainnet node answers (shapes of https://solana.com/docs/rpc/http/gettransaction): a v0
# transaction with a compute-budget instruction (not decoded) and a USDC transferChecked
USDC_OUT = {
    "slot": 301_000_000, "blockTime": 1_732_700_000, "version": 0,
    "meta": {"err": None, "status": {"Ok": None}, "fee": 5000, "preBalances": [10, 2, 2, 1, 1],
             "postBalances": [5, 2, 2, 1, 1], "innerInstructions": [], "logMessages": [],
             "preTokenBalances": [_balance(1, ME, 50_000_000), _balance(2, THEM, 0)],
             "postTokenBalances": [_balance(1, ME, 37_500_000), _balance(2, THEM, 12_500_000)],
             "rewards": [], "loadedAddresses": {"writable": [], "readonly": []}, "computeUnitsConsumed": 6000},
    "transaction": {"signatures": [SIG_1], "message": {
        "accountKeys": [{"pubkey": k, "signer": i == 0, "writable": i < 3, "source": "transaction"}
                        for i, k in enumerate([ME, MY_USDC, THEIR_USDC, USDC, TOKEN_PROGRAM])],
        "recentBlockhash": "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N", "addressTableLookups": [],
        "instructions": [
            {"programId": "ComputeBudget111111111111111111111111111111", "accounts": [], "data": "3DTZbgwsozUF",
             "stackHeight": None},
            {"program": "spl-token", "programId": TOKEN_PROGRAM, "stackHeight": None, "parsed": {
                "type": "transferChecked", "info": {
                    "source": MY_USDC, "mint": USDC, "destination": THEIR_USDC, "authority": ME,
                    "tokenAmount": {"amount": "12500000", "decimals": 6, "uiAmount": 12.5, "uiAmountString": "12.5"}}}},
        ]}},
}
SOL_IN = {
    "slot": 300_999_000, "blockTime": 1_732_600_000, "version": "legacy",
    "meta": {"err": None, "status": {"Ok": None}, "fee": 5000, "preBalances": [9, 0, 1], "postBalances": [4, 5, 1],
             "innerInstructions": [], "logMessages": [], "preTokenBalances": [], "postTokenBalances": [],
             "rewards": []},
    "transaction": {"signatures": [SIG_2], "message": {
        "accountKeys": [{"pubkey": THEM, "signer": True, "writable": True, "source": "transaction"},
                        {"pubkey": ME, "signer": False, "writable": True, "source": "transaction"},
                        {"pubkey": "11111111111111111111111111111111", "signer": False, "writable": False,
                         "source": "transaction"}],
        "recentBlockhash": "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
        "instructions": [{"program": "system", "programId": "11111111111111111111111111111111", "stackHeight": None,
                          "parsed": {"type": "transfer", "info": {"source": THEM, "destination": ME,
                                                                  "lamports": 1_250_000_000}}}]}},
}


def _node(sent: list[dict[str, Any]]) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        method, params = body["method"], body["params"]
        if method == "getSignaturesForAddress":
            result: Any = [{"signature": SIG_1, "slot": 301_000_000, "err": None, "memo": None,
                            "blockTime": 1_732_700_000, "confirmationStatus": "finalized"},
                           {"signature": SIG_2, "slot": 300_999_000, "err": None, "memo": None,
                            "blockTime": 1_732_600_000, "confirmationStatus": "finalized"}]
        else:
            result = {SIG_1: USDC_OUT, SIG_2: SOL_IN}[params[0]]
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result})
    return httpx.MockTransport(answer)


def _fetch(sent: list[dict[str, Any]], **kwargs: Any) -> Any:
    async def go() -> Any:
        async with httpx.AsyncClient(transport=_node(sent)) as http:
            return await fetch_solana_history(http, rpc_url="https://rpc.example/", address=ME,
                                              chain="solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", **kwargs)
    return asyncio.run(go())


def test_the_exact_requests_sent_to_a_configured_rpc() -> None:
    sent: list[dict[str, Any]] = []
    _fetch(sent, limit=2, cursor="3" + "m" * 87, tokens={USDC: ["USDC", "USD Coin"]})
    assert sent[0] == {"jsonrpc": "2.0", "id": 1, "method": "getSignaturesForAddress",
                       "params": [ME, {"limit": 2, "commitment": "confirmed", "before": "3" + "m" * 87}]}
    config = {"encoding": "jsonParsed", "commitment": "confirmed", "maxSupportedTransactionVersion": 0}
    assert sorted((b["method"], json.dumps(b["params"])) for b in sent[1:]) == sorted(
        ("getTransaction", json.dumps([sig, config])) for sig in (SIG_1, SIG_2))
    first: list[dict[str, Any]] = []
    _fetch(first)
    assert first[0]["params"] == [ME, {"limit": 10, "commitment": "confirmed"}]  # no cursor: no `before`


def test_a_nodes_answers_read_as_transfers_with_amount_and_direction() -> None:
    page = _fetch([], limit=2, tokens={USDC: ["USDC", "USD Coin"]})
    assert page["next"] == SIG_2  # a full page: the next one starts before its last signature
    out, came = (parse_transaction(tx) for tx in page["data"])
    assert (out.operation_type, out.sent_from, out.sent_to, out.status, out.mined_at) == (
        "send", ME, THEM, "confirmed", 1_732_700_000)
    assert [(t.direction, t.quantity, t.symbol) for t in out.transfers] == [("out", "12.5", "USDC")]
    assert (came.operation_type, came.sent_from, came.sent_to) == ("receive", THEM, ME)
    assert [(t.direction, t.quantity, t.symbol) for t in came.transfers] == [("in", "1.25", "SOL")]
    short = _fetch([], limit=3)
    assert short["next"] is None  # fewer than asked: the last page
    assert short["data"][0]["transfers"][0]["fungible_info"]["symbol"] == "EPjF…Dt1v"  # a mint not configured


def test_no_account_and_a_page_too_large_are_refused_before_any_request() -> None:
    sent: list[dict[str, Any]] = []
    with pytest.raises(HistoryError):
        _fetch(sent, limit=51)
    assert sent == []


# ---- the dev chain's methods --------------------------------------------------------------------

def test_the_dev_chain_lists_an_addresses_signatures_newest_first_in_pages() -> None:
    ledger = DevLedger()
    rpc = DevRpc(ledger)
    me = Keypair().pubkey()
    signatures = [ledger.airdrop(me, (n + 1) * SOL) for n in range(5)]
    newest = list(reversed(signatures))
    rows = rpc.call("getSignaturesForAddress", [str(me), {"limit": 2}])
    assert [r["signature"] for r in rows] == newest[:2]
    assert rows[0]["confirmationStatus"] == "finalized" and rows[0]["err"] is None
    after = rpc.call("getSignaturesForAddress", [str(me), {"limit": 2, "before": newest[1]}])
    assert [r["signature"] for r in after] == newest[2:4]
    until = rpc.call("getSignaturesForAddress", [str(me), {"until": newest[2]}])
    assert [r["signature"] for r in until] == newest[:2]
    assert rpc.call("getSignaturesForAddress", [str(Keypair().pubkey())]) == []
    for bad in ({"limit": 0}, {"limit": 1001}, {"limit": "2"}, {"before": "not-a-signature"}):
        with pytest.raises(RpcError):
            rpc.call("getSignaturesForAddress", [str(me), bad])


def test_the_dev_chain_tells_a_transaction_in_each_encoding() -> None:
    ledger = DevLedger()
    rpc = DevRpc(ledger)
    me = Keypair().pubkey()
    signature = ledger.airdrop(me, 2 * SOL)
    parsed = rpc.call("getTransaction", [signature, {"encoding": "jsonParsed", "maxSupportedTransactionVersion": 0}])
    [ins] = parsed["transaction"]["message"]["instructions"]
    assert ins["program"] == "system" and ins["parsed"]["type"] == "transfer"
    assert ins["parsed"]["info"]["destination"] == str(me) and ins["parsed"]["info"]["lamports"] == 2 * SOL
    assert parsed["meta"]["postBalances"][1] - parsed["meta"]["preBalances"][1] == 2 * SOL
    assert parsed["transaction"]["signatures"] == [signature] and parsed["version"] == "legacy"
    plain = rpc.call("getTransaction", [signature])  # json by default
    assert plain["transaction"]["message"]["accountKeys"][1] == str(me)
    assert "programIdIndex" in plain["transaction"]["message"]["instructions"][0]
    assert rpc.call("getTransaction", [signature, {"encoding": "base64"}])["transaction"][1] == "base64"
    assert rpc.call("getTransaction", ["1" * 64]) is None  # a signature the ledger never saw
    with pytest.raises(RpcError):
        rpc.call("getTransaction", [signature, {"encoding": "binary"}])
