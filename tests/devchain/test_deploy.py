"""Deployed tokens, funding, deterministic addresses, transfers and snapshot isolation."""

from __future__ import annotations

import pytest

from modalcore_dev.devchain.deploy import (
    DEPLOYMENT_PATH,
    DeploymentMismatch,
    check_against,
    deploy_all,
    load_deployment,
)
from modalcore_dev.devchain.pytest_plugin import ChainsInfo, revert, snapshot

pytestmark = pytest.mark.chain


def test_tokens_with_18_and_6_decimals_on_each_chain(devchains: ChainsInfo) -> None:
    for chain_id in devchains.chain_ids:
        demo = devchains.token(chain_id, "DEMO")
        tusd = devchains.token(chain_id, "TUSD")
        assert (demo["name"], demo["decimals"]) == ("Demo Token", 18)
        assert (tusd["name"], tusd["decimals"]) == ("Test USD", 6)
        with devchains.rpc(chain_id) as rpc:
            for token in (demo, tusd):
                (decimals,) = rpc.eth_call(token["address"], "decimals()", returns=["uint8"])
                (symbol,) = rpc.eth_call(token["address"], "symbol()", returns=["string"])
                assert (decimals, symbol) == (token["decimals"], token["symbol"])


def test_dev_accounts_hold_what_was_funded(devchains: ChainsInfo) -> None:
    for chain_id in devchains.chain_ids:
        entry = devchains.chain(chain_id)
        with devchains.rpc(chain_id) as rpc:
            for token in entry["tokens"]:
                funding = entry["funding"][token["symbol"]]
                for account in entry["accounts"][1:5]:
                    assert funding[account] == str(10_000 * 10 ** token["decimals"])
                for holder, amount in funding.items():
                    assert rpc.erc20_balance(token["address"], holder) == int(amount)
                assert sum(int(a) for a in funding.values()) == int(token["totalSupply"])


def test_addresses_are_deterministic_and_match_the_fixture(devchains: ChainsInfo) -> None:
    fixture = load_deployment(DEPLOYMENT_PATH)
    assert fixture is not None and sorted(fixture) == ["31337", "31338"]
    check_against(devchains.deployment, fixture)
    a, b = devchains.chain(31337), devchains.chain(31338)
    assert [t["address"] for t in a["tokens"]] == [t["address"] for t in b["tokens"]]
    assert fixture["31337"]["rpc"] == "http://127.0.0.1:8545"
    assert fixture["31338"]["rpc"] == "http://127.0.0.1:8546"


def test_a_different_address_is_reported(devchains: ChainsInfo) -> None:
    fixture = load_deployment(DEPLOYMENT_PATH)
    assert fixture is not None
    fixture["31337"]["tokens"][0]["address"] = "0x" + "11" * 20
    with pytest.raises(DeploymentMismatch):
        check_against(devchains.deployment, fixture)


def test_deploying_again_on_a_deployed_chain_rereads_it(devchains: ChainsInfo) -> None:
    again = deploy_all(devchains.rpc_urls)
    for key, entry in again.items():
        assert entry["tokens"] == devchains.deployment[key]["tokens"]
        assert entry["eip1271Wallet"] == devchains.deployment[key]["eip1271Wallet"]
        assert entry["uniswapV2"] == devchains.deployment[key]["uniswapV2"]
        assert entry["ens"] == devchains.deployment[key]["ens"]


def test_market_and_ens_come_after_the_earlier_contracts_and_match_the_fixture(
    devchains: ChainsInfo,
) -> None:
    fixture = load_deployment(DEPLOYMENT_PATH)
    assert fixture is not None
    for key in ("31337", "31338"):
        assert devchains.deployment[key]["uniswapV2"] == fixture[key]["uniswapV2"]
        assert devchains.deployment[key]["ens"] == fixture[key]["ens"]
    # the addresses from before the market and ENS existed did not move
    assert fixture["31337"]["nfts"][0]["address"] == "0x9A676e781A523b5d0C0e43731313A708CB607508"
    assert fixture["31337"]["eip1271Wallet"]["address"] == "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"


def test_a_different_router_is_reported_and_an_older_fixture_still_checks(devchains: ChainsInfo) -> None:
    fixture = load_deployment(DEPLOYMENT_PATH)
    assert fixture is not None
    fixture["31338"]["uniswapV2"]["router"] = "0x" + "22" * 20
    with pytest.raises(DeploymentMismatch, match="uniswapV2"):
        check_against(devchains.deployment, fixture)
    older = load_deployment(DEPLOYMENT_PATH)
    assert older is not None
    for entry in older.values():  # a fixture written before the market and ENS existed
        del entry["uniswapV2"], entry["ens"]
    check_against(devchains.deployment, older)
    older["31337"]["tokens"][1]["address"] = "0x" + "33" * 20
    with pytest.raises(DeploymentMismatch, match="tokens"):
        check_against(devchains.deployment, older)


def test_transfer_moves_balances_exactly(devchain: ChainsInfo) -> None:
    for chain_id in devchain.chain_ids:
        entry = devchain.chain(chain_id)
        sender, receiver = entry["accounts"][1], entry["accounts"][2]
        tusd = devchain.token(chain_id, "TUSD")["address"]
        amount = 1_234_567  # 1.234567 TUSD
        with devchain.rpc(chain_id) as rpc:
            before = rpc.erc20_balance(tusd, sender), rpc.erc20_balance(tusd, receiver)
            receipt = rpc.send_call(sender, tusd, "transfer(address,uint256)", [receiver, amount])
            assert int(receipt["status"], 16) == 1
            after = rpc.erc20_balance(tusd, sender), rpc.erc20_balance(tusd, receiver)
        assert after == (before[0] - amount, before[1] + amount)


def test_snapshot_and_revert_undo_a_transfer(devchains: ChainsInfo) -> None:
    url = devchains.rpc_urls[31338]
    entry = devchains.chain(31338)
    demo = devchains.token(31338, "DEMO")["address"]
    sender, receiver = entry["accounts"][3], entry["accounts"][4]
    with devchains.rpc(31338) as rpc:
        start = rpc.erc20_balance(demo, receiver)
        snap = snapshot(url)
        rpc.send_call(sender, demo, "transfer(address,uint256)", [receiver, 10**18])
        assert rpc.erc20_balance(demo, receiver) == start + 10**18
        assert revert(url, snap) is True
        assert rpc.erc20_balance(demo, receiver) == start


def test_chains_are_independent(devchain: ChainsInfo) -> None:
    entry = devchain.chain(31337)
    demo = devchain.token(31337, "DEMO")["address"]
    sender, receiver = entry["accounts"][1], entry["accounts"][2]
    with devchain.rpc(31337) as a, devchain.rpc(31338) as b:
        before_b = b.erc20_balance(demo, receiver)
        a.send_call(sender, demo, "transfer(address,uint256)", [receiver, 5])
        assert b.erc20_balance(demo, receiver) == before_b
