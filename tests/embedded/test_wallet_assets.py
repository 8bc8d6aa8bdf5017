"""`wallet_getAssets` (behaviour.md §6: safe, read-only, no approval; EIP-7811 request, behaviour.md §3 Wallet
asset shape) asked through the host dApp's provider (host intent `rpc`) of a signed-in embedded
wallet, answered from the real Hardhat chains by the engine's `balances` service: native and
token balances exactly as the nodes hold them. Only the embedded account and the configured
chains; any other account, chain or malformed request is refused with a JSON-RPC error, reads
nothing and leaves nothing waiting."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore.core.cmds import Call
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.server.config import DEV_ETH_PRICE
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.rules import limits as L
from modalcore.services.backend.table import default_services

from ..devwallet import chain_networks
from .world import EmailWorld, open_wallet

pytestmark = pytest.mark.chain
FUNDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"  # holds DEMO and TUSD on the dev chains
NATIVE_WEI = 1_234_567_891_234_567_891
TUSD_RAW = 4_321_500_000  # 4,321.5 TUSD (6 decimals)
TRANSFER = "0xa9059cbb"


@pytest.fixture
def world(devchain: ChainsInfo, tmp_path: Path, smtp: LocalSmtpServer) -> Iterator[EmailWorld]:
    http = httpx.AsyncClient()
    world = EmailWorld(open_wallet(tmp_path / "e.db", smtp), smtp, services=default_services(http),
                       options={"networks": ["eip155:31337", "eip155:31338"]},
                       known_networks=chain_networks(devchain.rpc_urls, devchain.deployment))
    yield world
    world.loop.run_until_complete(http.aclose())
    world.loop.close()


def _word(value: int | str) -> str:
    number = int(value, 16) if isinstance(value, str) else value
    return f"{number:064x}"


def _fund(chains: ChainsInfo, address: str) -> None:
    tusd = chains.token(31337, "TUSD")["address"]
    with chains.rpc(31337) as rpc:
        rpc.call("hardhat_setBalance", [address, hex(NATIVE_WEI)])
        tx = rpc.call("eth_sendTransaction", [{"from": FUNDER, "to": tusd,
                                               "data": TRANSFER + _word(address) + _word(TUSD_RAW)}])
        assert rpc.call("eth_getTransactionReceipt", [tx])["status"] == "0x1"


def _node(chains: ChainsInfo, chain_id: int, address: str, token: str | None = None) -> int:
    with chains.rpc(chain_id) as rpc:
        if token is None:
            return int(rpc.call("eth_getBalance", [address, "latest"]), 16)
        return int(rpc.call("eth_call", [{"to": token, "data": "0x70a08231" + _word(address)}, "latest"]), 16)


def _ask(world: EmailWorld, request_id: str, params: Any) -> dict[str, Any]:
    assert world.h.intent("host", "rpc", {"id": request_id, "method": "wallet_getAssets", "params": params}) == "ok"
    assert world.h.view != "ApproveTransaction" and world.h.effects() == []  # no approval, nothing to the page
    world.settle_all()
    answer = world.h.host_state("rpc")
    assert answer["id"] == request_id
    assert world.h.model.embedded.request is None  # nothing left waiting
    return answer


def _reads(world: EmailWorld) -> list[Call[Any]]:
    return [c for c in world.h.log if isinstance(c, Call) and c.service.name == "balances"
            and c.reply.__name__ == "AssetBalancesFetched"]


def test_wallet_get_assets_answers_the_exact_native_and_token_balances_of_every_configured_chain(
        world: EmailWorld, devchain: ChainsInfo) -> None:
    address = world.sign_in("ada@example.com")
    _fund(devchain, address)
    answer = _ask(world, "a1", [{"account": address}])
    assert answer["ok"] is True, answer
    result = answer["result"]
    assert list(result) == ["0x7a69", "0x7a6a"]  # keyed by hex chain id, configured order
    for chain_hex, chain_id in (("0x7a69", 31337), ("0x7a6a", 31338)):
        native, *tokens = result[chain_hex]
        assert native == {"address": "native", "balance": hex(_node(devchain, chain_id, address)), "type": "NATIVE",
                          "metadata": {"name": "Ether", "symbol": "ETH", "decimals": 18, "price": DEV_ETH_PRICE, "iconUrl": ""}}
        deployed = devchain.chain(chain_id)["tokens"]
        assert [t["address"] for t in tokens] == [t["address"] for t in deployed]
        for row, token in zip(tokens, deployed, strict=True):
            assert row["type"] == "ERC20"
            assert row["balance"] == hex(_node(devchain, chain_id, address, token["address"]))
            assert {k: row["metadata"][k] for k in ("name", "symbol", "decimals")} == \
                {"name": token["name"], "symbol": token["symbol"], "decimals": token["decimals"]}
            assert set(row["metadata"]) == {"name", "symbol", "decimals", "price", "iconUrl"}
    # exact: what was funded, not merely what the node says
    assert result["0x7a69"][0]["balance"] == hex(NATIVE_WEI)
    tusd = next(r for r in result["0x7a69"] if r["metadata"]["symbol"] == "TUSD")
    assert tusd["balance"] == hex(TUSD_RAW) and tusd["metadata"]["price"] == 1.0
    assert next(r for r in result["0x7a6a"] if r["metadata"]["symbol"] == "TUSD")["balance"] == "0x0"
    assert len(_reads(world)) == 2  # one balances read per chain


def test_the_filters_answer_only_what_they_name(world: EmailWorld, devchain: ChainsInfo) -> None:
    address = world.sign_in("bea@example.com")
    _fund(devchain, address)
    tusd = devchain.token(31337, "TUSD")["address"]
    only_one_chain = _ask(world, "f1", [{"account": address.lower(), "chainFilter": ["0x7a69"]}])["result"]
    assert list(only_one_chain) == ["0x7a69"] and len(_reads(world)) == 1
    tokens_only = _ask(world, "f2", [{"account": address, "chainFilter": ["0x7A69"],
                                      "assetTypeFilter": ["erc20"]}])["result"]
    assert [r["type"] for r in tokens_only["0x7a69"]] == ["ERC20", "ERC20"]
    # assetFilter names exact assets and overrides the other filters (EIP-7811)
    named = _ask(world, "f3", [{"account": address, "assetTypeFilter": ["native"],
                                "assetFilter": {"0x7a69": [{"address": tusd.lower(), "type": "erc20"},
                                                           {"address": "native", "type": "native"}]}}])["result"]
    assert [(r["address"], r["balance"]) for r in named["0x7a69"]] == [("native", hex(NATIVE_WEI)),
                                                                        (tusd, hex(TUSD_RAW))]
    assert list(named) == ["0x7a69"]
    assert _ask(world, "f4", [{"account": address, "chainFilter": []}])["result"] == {}


TOO_MANY_CHAINS = [hex(n) for n in range(1, L.ASSETS_CHAINS + 2)]


@pytest.mark.parametrize(("params", "code", "message"), [
    ([{"account": "0x" + "11" * 20}], 4100, "only the signed-in account's assets can be read"),
    ("OTHER_CHAIN", 4902, "Chain 0x1 is not configured for this wallet"),
    ("ASSET_ON_OTHER_CHAIN", 4902, "Chain 0x89 is not configured for this wallet"),
    ([], -32602, "wallet_getAssets takes one params object"),
    ("TWO_OBJECTS", -32602, "wallet_getAssets takes one params object"),
    (["0x00"], -32602, "Invalid wallet_getAssets params"),
    ([{"account": "0x1234"}], -32602, "at account"),
    ("EXTRA_FIELD", -32602, "at extra"),
    ("CHAIN_NOT_HEX", -32602, "at chainFilter.0"),
    ("TOO_MANY_CHAINS", -32602, "at chainFilter"),
    ("TOO_MANY_ASSETS", -32602, "at assetFilter.0x7a69"),
    ("LONG_TYPE", -32602, "at assetTypeFilter.0"),
])
def test_another_account_chain_or_malformed_request_is_refused_and_reads_nothing(
        world: EmailWorld, params: Any, code: int, message: str) -> None:
    address = world.sign_in("cid@example.com")
    params = {
        "OTHER_CHAIN": [{"account": address, "chainFilter": ["0x7a69", "0x1"]}],
        "ASSET_ON_OTHER_CHAIN": [{"account": address, "assetFilter": {"0x89": []}}],
        "TWO_OBJECTS": [{"account": address}, {"account": address}],
        "EXTRA_FIELD": [{"account": address, "extra": 1}],
        "CHAIN_NOT_HEX": [{"account": address, "chainFilter": [31337]}],
        "TOO_MANY_CHAINS": [{"account": address, "chainFilter": TOO_MANY_CHAINS}],
        "TOO_MANY_ASSETS": [{"account": address, "assetFilter": {
            "0x7a69": [{"address": "native", "type": "native"}] * (L.ASSETS_PER_CHAIN + 1)}}],
        "LONG_TYPE": [{"account": address, "assetTypeFilter": ["x" * (L.ASSET_TYPE_CHARS + 1)]}],
    }.get(params, params) if isinstance(params, str) else params
    world.settle_all()  # the sign-in's own reads (the Account view's balances) first
    accounts, networks = world.h.model.accounts, world.h.model.networks
    answer = _ask(world, "r1", params)
    assert answer["ok"] is False and answer["code"] == code and message in answer["message"], answer
    assert _reads(world) == []
    assert world.h.model.accounts == accounts and world.h.model.networks == networks


def test_a_failed_chain_read_answers_an_error_and_leaves_nothing_waiting(world: EmailWorld) -> None:
    address = world.sign_in("dee@example.com")
    assert world.h.intent("host", "rpc", {"id": "x1", "method": "wallet_getAssets",
                                          "params": [{"account": address}]}) == "ok"
    first, second = [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "balances"
                     and c.reply.__name__ == "AssetBalancesFetched"]
    world.h.cmds.clear()
    world.h.settle(first, {"native": "5", "tokens": {}})
    assert world.h.model.embedded.request is not None  # the other chain is still being read
    world.h.settle(second, ok=False, error="connection refused")
    assert world.h.host_state("rpc") == {"id": "x1", "ok": False, "code": -32603,
                                         "message": "The balances on Hardhat Two could not be read"}
    assert world.h.model.embedded.request is None
    # the next request is served (nothing waits)
    assert world.h.intent("host", "rpc", {"id": "x2", "method": "eth_chainId", "params": []}) == "ok"
    assert world.h.host_state("rpc") == {"id": "x2", "ok": True, "result": "0x7a69"}
