"""Committed contract artifacts: present, small, and what chain/compile.mjs builds today."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from modalcore_dev.devchain.deploy import ARTIFACT_DIR, load_artifact
from modalcore_dev.devchain.nodes import CHAIN_DIR, ensure_node_modules


@pytest.mark.parametrize("name", ["ERC20PresetFixedSupply", "TestUSD", "DevContractWallet",
                                  "ERC721PresetMinterPauserAutoId", "WETH9", "UniswapV2Factory",
                                  "UniswapV2Router02", "ENSRegistry", "ReverseRegistrar",
                                  "PublicResolver"])
def test_artifact_has_abi_and_bytecode(name: str) -> None:
    artifact = load_artifact(name)
    assert artifact["contractName"] == name
    assert artifact["bytecode"].startswith("0x60") and len(artifact["bytecode"]) > 1000
    assert any(item.get("type") == "function" for item in artifact["abi"])
    assert (ARTIFACT_DIR / f"{name}.json").stat().st_size < 64_000


def test_wallet_abi_has_eip1271_and_execute() -> None:
    names = {i.get("name") for i in load_artifact("DevContractWallet")["abi"]}
    assert {"isValidSignature", "execute", "owner"} <= names


@pytest.mark.chain
def test_committed_artifacts_match_a_fresh_compile() -> None:
    node = shutil.which("node")
    assert node is not None, "node is required: `make test` runs on a machine with Node 20"
    ensure_node_modules()
    result = subprocess.run(
        [node, str(CHAIN_DIR / "compile.mjs"), "--check"], capture_output=True, text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


def test_router_and_factory_are_the_published_npm_builds() -> None:
    """The pair is never recompiled: the factory and Router02 come from the npm packages, whose
    pair init-code hash (hard-coded in Router02) matches the factory's pair bytecode."""
    from eth_utils.crypto import keccak

    factory = load_artifact("UniswapV2Factory")
    router = load_artifact("UniswapV2Router02")
    assert factory["sourceName"].startswith("@uniswap/v2-core@1.0.1/")
    assert router["sourceName"].startswith("@uniswap/v2-periphery@1.1.0-beta.0/")
    pair = (CHAIN_DIR / "node_modules" / "@uniswap" / "v2-core" / "build" / "UniswapV2Pair.json")
    if not pair.exists():
        ensure_node_modules()
    import json

    init_code = bytes.fromhex(json.loads(pair.read_text())["bytecode"].removeprefix("0x"))
    assert init_code.hex() in factory["bytecode"]
    assert keccak(init_code).hex() in router["bytecode"]
