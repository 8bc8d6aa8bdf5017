"""The NFTs tab against the real Hardhat nodes: the deployed "Demo Collectibles" (DCOL) tokens,
found by the `nfts` service's log scan, before and after a real `transferFrom`."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from modalcore.enginetest import Harness
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.core.cmds import CallSettled
from modalcore.services.backend.nfts import fetch_nfts
from modalcore.services.domain.shapes import NftsResult

from ..devwallet import chain_networks
from .conftest import ADDRESS, OTHER, dev_session

pytestmark = pytest.mark.chain


def scan(chains: ChainsInfo, chain_id: int, address: str) -> NftsResult:
    async def run() -> NftsResult:
        async with httpx.AsyncClient() as http:
            return await fetch_nfts(http, rpc_url=chains.rpc_urls[chain_id], address=address)

    return asyncio.run(run())


def token_ids(result: NftsResult) -> list[str]:
    return [item["token_id"] for item in result["items"]]


def transfer_from(chains: ChainsInfo, chain_id: int, sender: str, receiver: str, token_id: int) -> None:
    collection = chains.nft(chain_id, "DCOL")["address"]
    with chains.rpc(chain_id) as rpc:  # eth_sendTransaction from the unlocked dev account
        receipt = rpc.send_call(sender, collection, "transferFrom(address,address,uint256)",
                                [sender, receiver, token_id])
        assert int(receipt["status"], 16) == 1
        (owner,) = rpc.eth_call(collection, "ownerOf(uint256)", [token_id], ["address"])
        assert owner.lower() == receiver.lower()


def test_the_collection_is_deployed_and_minted_on_both_chains(devchains: ChainsInfo) -> None:
    for chain_id in devchains.chain_ids:
        collection = devchains.nft(chain_id, "DCOL")
        assert collection["name"] == "Demo Collectibles"
        assert collection["owners"] == {"0": ADDRESS, "1": ADDRESS, "2": ADDRESS, "3": OTHER, "4": OTHER}
        with devchains.rpc(chain_id) as rpc:
            for token_id, owner in collection["owners"].items():
                (actual,) = rpc.eth_call(collection["address"], "ownerOf(uint256)", [int(token_id)], ["address"])
                assert actual.lower() == owner.lower()
            (uri,) = rpc.eth_call(collection["address"], "tokenURI(uint256)", [1], ["string"])
            assert uri == "https://example.invalid/dcol/1"


def test_account_0_owns_the_three_minted_tokens(devchain: ChainsInfo) -> None:
    collection = devchain.nft(31337, "DCOL")["address"]
    result = scan(devchain, 31337, ADDRESS)
    assert result["items"] == [
        # its token URIs name a server (example.invalid): not fetched, no image
        {"contract": collection, "token_id": str(i), "name": "Demo Collectibles", "symbol": "DCOL", "image": ""}
        for i in range(3)
    ]
    assert token_ids(scan(devchain, 31337, OTHER)) == ["3", "4"]  # ERC-20 funding is not counted
    assert token_ids(scan(devchain, 31338, ADDRESS)) == ["0", "1", "2"]
    third = devchain.chain(31337)["accounts"][2]
    assert scan(devchain, 31337, third)["items"] == []


def test_a_real_transfer_moves_one_token(devchain: ChainsInfo) -> None:
    transfer_from(devchain, 31337, ADDRESS, OTHER, 1)
    assert token_ids(scan(devchain, 31337, ADDRESS)) == ["0", "2"]
    assert token_ids(scan(devchain, 31337, OTHER)) == ["1", "3", "4"]
    assert token_ids(scan(devchain, 31338, ADDRESS)) == ["0", "1", "2"]  # the other chain is untouched
    transfer_from(devchain, 31337, OTHER, ADDRESS, 1)  # and back: the last transfer wins
    assert token_ids(scan(devchain, 31337, ADDRESS)) == ["0", "1", "2"]


def test_a_transfer_to_oneself_keeps_the_token(devchain: ChainsInfo) -> None:
    transfer_from(devchain, 31337, ADDRESS, ADDRESS, 2)
    assert token_ids(scan(devchain, 31337, ADDRESS)) == ["0", "1", "2"]


def _driver(chains: ChainsInfo) -> Harness:
    return dev_session(networks=chain_networks(chains.rpc_urls, chains.deployment))


def _run_nfts_call(driver: Harness) -> None:
    call = driver.calls("nfts")[-1]

    async def run() -> Any:
        async with httpx.AsyncClient() as http:
            return await fetch_nfts(http, **call.args_data)

    driver.deliver(CallSettled(call.to, True, asyncio.run(run()), "", dict(call.context)))


def _labels(driver: Harness) -> list[str]:
    box = driver.node("account/nfts")
    return [child.c[1].p["text"] for child in box.c if child.t == "stack"]


def test_the_tab_shows_the_tokens_before_and_after_a_real_transfer(devchain: ChainsInfo) -> None:
    driver = _driver(devchain)
    driver.connect_wallet()
    driver.intent("host", "open")
    driver.intent("account/tabs", "select", {"value": "1"})
    _run_nfts_call(driver)
    assert _labels(driver) == ["DCOL #0", "DCOL #1", "DCOL #2"]

    transfer_from(devchain, 31337, ADDRESS, OTHER, 0)
    driver.advance(30_000)  # past the cache
    driver.intent("account/tabs", "select", {"value": "0"})
    driver.intent("account/tabs", "select", {"value": "1"})
    _run_nfts_call(driver)
    assert _labels(driver) == ["DCOL #1", "DCOL #2"]

    other = _driver(devchain)
    other.connect_wallet(address=OTHER)
    other.intent("host", "open")
    other.intent("account/tabs", "select", {"value": "1"})
    _run_nfts_call(other)
    assert _labels(other) == ["DCOL #0", "DCOL #3", "DCOL #4"]
