"""Committed contract artifacts (fixtures/chain/contracts) and deploying one of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eth_abi.abi import encode
from eth_utils.address import to_checksum_address

from modalcore_dev.devchain.nodes import REPO_ROOT
from modalcore_dev.devchain.rpc import Rpc

FIXTURE_DIR = REPO_ROOT / "fixtures" / "chain"
ARTIFACT_DIR = FIXTURE_DIR / "contracts"


class DeploymentError(Exception):
    """The chain is not in the state a deployment expects (not fresh, wrong decimals, ...)."""


def load_artifact(name: str, artifact_dir: Path = ARTIFACT_DIR) -> dict[str, Any]:
    """{contractName, abi, bytecode, ...} from fixtures/chain/contracts/<name>.json."""
    data: dict[str, Any] = json.loads((artifact_dir / f"{name}.json").read_text())
    return data


def deploy_contract(rpc: Rpc, sender: str, artifact: str, types: list[str], args: list[Any]) -> str:
    """Deploy an artifact with constructor arguments; returns the checksummed address."""
    bytecode = str(load_artifact(artifact)["bytecode"])
    data = bytecode + encode(types, args).hex()
    receipt = rpc.transact({"from": sender, "data": data})
    address = receipt.get("contractAddress")
    if not address:
        raise DeploymentError(f"{artifact}: receipt has no contract address")
    return to_checksum_address(str(address))
