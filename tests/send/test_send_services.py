"""The services behind sends and Activity, checked for the exact requests they send."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from eth_abi.abi import encode
from eth_utils.address import to_checksum_address
from hypothesis import given
from hypothesis import strategies as st
import pytest

from modalcore.services.backend.table import default_services
from modalcore.services.backend.blockchain_api import BlockchainApi
from modalcore.services.backend.history import NO_ACCOUNT, HistoryError, fetch_history, hosted_history, parse_cursor
from modalcore.services.backend.send import estimate_fee
from modalcore.services.domain.transfer import (
    TRANSFER_INTERFACES_PATH,
    TransferInterfaceError,
    erc20_tx,
    load_interfaces,
    native_tx,
    transfer_accepted,
    transfer_interface,
)
from modalcore.services.domain.handles import HISTORY

USDT_CONTRACTS = [  # behaviour.md §7: seven listed USDT contracts use a different transfer interface
    "0xdac17f958d2ee523a2206206994597c13d831ec7",
    "0xc2132d05d31c914a87c6611c10748aeb04b58e8f",
    "0x9702230a8ea53601f5cd2dc00fdbc13d4df4a8c7",
    "0x919C1c267BC06a7039e03fcc2eF738525769109c",
    "0x48065fbBE25f71C9282ddf5e1cD6D6A887483D5e",
    "0x55d398326f99059fF775485246999027B3197955",
    "0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9",
]
TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
SENDER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
RECEIVER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
TRUE = "0x" + "0" * 63 + "1"


def _recording(answer: Any) -> tuple[list[httpx.Request], httpx.AsyncClient]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answer(json.loads(request.content)) if callable(answer) else answer)

    return seen, httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_hosted_history_call_sends_cursor_onramp_and_chain_id() -> None:
    seen, http = _recording({"data": [], "next": "n2"})
    async with http:
        api = BlockchainApi(http, "https://rpc.example/", "proj1")
        result = await hosted_history(api, address="0xabc", chain="eip155:1", cursor="n1", onramp="coinbase")
    assert dict(result) == {"data": [], "next": "n2"}
    request = seen[0]
    assert request.method == "GET"
    assert str(request.url).split("?")[0] == "https://rpc.example/v1/account/0xabc/history"
    assert list(request.url.params.multi_items()) == [
        ("projectId", "proj1"), ("st", "html-wagmi-4.2.2"), ("sv", "4"),
        ("cursor", "n1"), ("onramp", "coinbase"), ("chainId", "eip155:1")]


async def test_hosted_history_first_page_sends_no_cursor() -> None:
    seen, http = _recording({"data": [{"id": "x"}]})
    async with http:
        result = await hosted_history(BlockchainApi(http, "https://rpc.example", "p"), address="0xabc",
                                      chain="eip155:10")
    assert result == {"data": [{"id": "x"}], "next": None}
    assert dict(seen[0].url.params) == {"projectId": "p", "st": "html-wagmi-4.2.2", "sv": "4", "chainId": "eip155:10"}


async def test_history_needs_an_account_address() -> None:
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(500))) as http:
        with pytest.raises(HistoryError, match="^Transactions can't be fetched without an accountAddress$"):
            await fetch_history(http, rpc_url="http://x", address="", chain="eip155:1")
        with pytest.raises(HistoryError, match=NO_ACCOUNT):
            await hosted_history(BlockchainApi(http, "https://x", "p"), address="", chain="eip155:1")


def test_the_history_cursor_names_a_block_and_a_transaction_index() -> None:
    assert parse_cursor(None) is None
    assert parse_cursor("12:3") == (12, 3)
    with pytest.raises(HistoryError):
        parse_cursor("twelve")


async def test_fee_estimate_asks_estimate_gas_and_gas_price_in_one_batch() -> None:
    tx = native_tx(SENDER, RECEIVER, 10**18)
    seen, http = _recording(lambda body: [{"jsonrpc": "2.0", "id": 1, "result": "0x5208"},
                                          {"jsonrpc": "2.0", "id": 2, "result": "0x3b9aca00"}])
    async with http:
        result = await estimate_fee(http, rpc_url="http://node", tx=tx)
    assert result == {"gas": "21000", "gas_price": "1000000000", "fee": str(21000 * 10**9)}
    assert json.loads(seen[0].content) == [
        {"jsonrpc": "2.0", "id": 1, "method": "eth_estimateGas", "params": [tx]},
        {"jsonrpc": "2.0", "id": 2, "method": "eth_gasPrice", "params": []},
    ]


async def test_a_token_fee_estimate_also_simulates_the_transfer() -> None:
    tx = erc20_tx(SENDER, TOKEN, RECEIVER, 5)
    seen, http = _recording(lambda body: [{"jsonrpc": "2.0", "id": 1, "result": "0xc350"},
                                          {"jsonrpc": "2.0", "id": 2, "result": "0x1"},
                                          {"jsonrpc": "2.0", "id": 3, "result": TRUE}])
    async with http:
        result = await estimate_fee(http, rpc_url="http://node", tx=tx, token=TOKEN)
    assert result["transfer_ok"] is True
    assert json.loads(seen[0].content)[2] == {"jsonrpc": "2.0", "id": 3, "method": "eth_call",
                                              "params": [tx, "latest"]}


async def test_the_services_table_names_history_and_estimate_fee() -> None:
    async with httpx.AsyncClient() as http:
        assert {"balances", "history", "estimate_fee"} <= {ref.name for ref in default_services(http)}


def test_the_seven_usdt_contracts_come_from_the_data_list() -> None:
    data = json.loads(TRANSFER_INTERFACES_PATH.read_text())
    assert sorted(data["contracts"]) == sorted(a.lower() for a in USDT_CONTRACTS)
    for address in USDT_CONTRACTS:
        assert transfer_interface(address).name == "usdt"
        assert transfer_interface(address).returns == ()
    assert transfer_interface(TOKEN).name == "erc20"


def test_a_usdt_transfer_that_returns_nothing_succeeds_a_standard_one_does_not() -> None:
    assert transfer_accepted(USDT_CONTRACTS[0], "0x") is True
    assert transfer_accepted(USDT_CONTRACTS[0], TRUE) is True
    assert transfer_accepted(TOKEN, "0x") is False
    assert transfer_accepted(TOKEN, TRUE) is True
    assert transfer_accepted(TOKEN, "0x" + "0" * 64) is False


def test_both_interfaces_encode_transfer_address_uint256() -> None:
    for token in (TOKEN, USDT_CONTRACTS[0]):
        data = erc20_tx(SENDER, token, RECEIVER, 7)["data"]
        assert data == "0xa9059cbb" + RECEIVER[2:].lower().rjust(64, "0") + "7".rjust(64, "0")


@given(st.binary(min_size=20, max_size=20), st.integers(min_value=0, max_value=2**256 - 1))
def test_the_transfer_call_is_what_eth_abi_encodes(receiver: bytes, amount: int) -> None:
    address = to_checksum_address(receiver)
    data = erc20_tx(SENDER, TOKEN, address, amount)["data"]
    assert data == "0xa9059cbb" + encode(["address", "uint256"], [address, amount]).hex()


def test_a_malformed_data_list_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps({"default": "erc20", "interfaces": {"erc20": {
        "function": "transfer(address,uint256)", "returns": ["bool"]}}, "contracts": {"0x1": "tron"}}))
    with pytest.raises(TransferInterfaceError, match="unknown interfaces"):
        load_interfaces(path)


async def test_with_a_hosted_api_the_history_service_uses_its_call() -> None:
    seen, http = _recording({"data": [], "next": None})
    async with http:
        services = default_services(http, BlockchainApi(http, "https://rpc.example", "proj1"))
        result = await services[HISTORY](rpc_url="http://node", address="0xabc", chain="eip155:1",
                                           cursor=None, limit=10, native_name="Ether",
                                           native_symbol="ETH", native_decimals=18)
    assert result == {"data": [], "next": None}
    assert seen[0].url.path == "/v1/account/0xabc/history"
