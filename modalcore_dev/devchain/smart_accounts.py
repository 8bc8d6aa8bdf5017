"""ERC-4337 v0.7 on a dev chain (issue 32), at addresses that do not depend on the chain's
history: Arachnid's CREATE2 deployer is put at its usual address with hardhat_setCode, and
through it (salted CREATE2) come

- the EntryPoint v0.7 (published bytecode, canonical salt: 0x0000000071727De22E5E9d8BAf0edAc6f37da032);
- ModalSmartAccountFactory (chain/contracts/aa: v0.7 SimpleAccount + ERC-1271) for it;
- the VerifyingPaymaster sample, its verifying signer the engine's dev paymaster key
  (fixtures/chain/paymaster-signer.key, public: a dev key), with PAYMASTER_DEPOSIT at the EntryPoint.

Sent by dev account 19, so dev account 0's nonces (and every address deploy.py derives from
them) stay as they were. Idempotent: what already has code is left alone.
"""

from __future__ import annotations

from typing import Any

from eth_abi.abi import encode
from eth_account import Account
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak

from modalcore.aa.userop import ENTRY_POINT_V07, account_implementation
from modalcore_dev.devchain.contracts import FIXTURE_DIR, DeploymentError, load_artifact
from modalcore_dev.devchain.rpc import Rpc

CREATE2_DEPLOYER = "0x4e59b44847b379578588920cA78FbF26c0B4956C"
CREATE2_DEPLOYER_CODE = ("0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082"
                         "378035828234f58015156039578182fd5b8082525050506014600cf3")
ENTRY_POINT_SALT = bytes.fromhex("90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3")
SALT = bytes(32)
FUNDER_INDEX = 19  # dev account that sends the deployments and the paymaster's deposit
PAYMASTER_SIGNER_KEY_PATH = FIXTURE_DIR / "paymaster-signer.key"
PAYMASTER_DEPOSIT = 100 * 10**18


def paymaster_signer_key() -> str:
    return PAYMASTER_SIGNER_KEY_PATH.read_text().strip()


def paymaster_signer() -> str:
    return str(Account.from_key(paymaster_signer_key()).address)


def _create2(salt: bytes, init_code: bytes) -> str:
    digest = keccak(b"\xff" + bytes.fromhex(CREATE2_DEPLOYER[2:]) + salt + keccak(init_code))
    return str(to_checksum_address("0x" + digest[12:].hex()))


def _has_code(rpc: Rpc, address: str) -> bool:
    return rpc.code(address) not in ("0x", "0x0", "")


def _deploy(rpc: Rpc, funder: str, salt: bytes, init_code: bytes) -> str:
    address = _create2(salt, init_code)
    if not _has_code(rpc, address):
        rpc.transact({"from": funder, "to": CREATE2_DEPLOYER, "data": "0x" + (salt + init_code).hex(),
                      "gas": hex(15_000_000)})
        if not _has_code(rpc, address):
            raise DeploymentError(f"CREATE2 deployment to {address} left no code")
    return address


def _init_code(artifact: str, types: list[str], args: list[Any]) -> bytes:
    return bytes.fromhex(str(load_artifact(artifact)["bytecode"])[2:]) + encode(types, args)


def deploy_smart_accounts(rpc: Rpc) -> dict[str, str]:
    """Deploy (or find) the EntryPoint, factory and paymaster; fund the paymaster's deposit."""
    funder = str(to_checksum_address(rpc.accounts()[FUNDER_INDEX]))
    if not _has_code(rpc, CREATE2_DEPLOYER):
        rpc.call("hardhat_setCode", [CREATE2_DEPLOYER, CREATE2_DEPLOYER_CODE])
    entry_point = _deploy(rpc, funder, ENTRY_POINT_SALT, _init_code("EntryPoint", [], []))
    if entry_point != ENTRY_POINT_V07:
        raise DeploymentError(f"the EntryPoint landed at {entry_point}, not {ENTRY_POINT_V07}")
    factory = _deploy(rpc, funder, SALT, _init_code("ModalSmartAccountFactory", ["address"], [entry_point]))
    paymaster = _deploy(rpc, funder, SALT, _init_code("VerifyingPaymaster", ["address", "address"],
                                                      [entry_point, paymaster_signer()]))
    (deposit,) = rpc.eth_call(entry_point, "balanceOf(address)", [paymaster], returns=["uint256"])
    if int(deposit) == 0:
        rpc.send_call(funder, paymaster, "deposit()", [], value=PAYMASTER_DEPOSIT)
    return {"entryPoint": entry_point, "factory": factory, "paymaster": paymaster}


def describe_smart_accounts(rpc: Rpc, addresses: dict[str, str]) -> dict[str, Any]:
    factory, paymaster = addresses["factory"], addresses["paymaster"]
    (implementation,) = rpc.eth_call(factory, "accountImplementation()", returns=["address"])
    if to_checksum_address(implementation) != account_implementation(factory):
        raise DeploymentError(f"factory {factory}: unexpected account implementation {implementation}")
    (signer,) = rpc.eth_call(paymaster, "verifyingSigner()", returns=["address"])
    if to_checksum_address(signer) != paymaster_signer():
        raise DeploymentError(f"paymaster {paymaster}: verifying signer {signer} is not the dev key's")
    return {
        "entryPoint": addresses["entryPoint"],
        "factory": factory,
        "factoryArtifact": "ModalSmartAccountFactory",
        "accountImplementation": account_implementation(factory),
        "paymaster": paymaster,
        "paymasterArtifact": "VerifyingPaymaster",
        "paymasterSigner": paymaster_signer(),
        "paymasterSignerKeyFile": str(PAYMASTER_SIGNER_KEY_PATH.relative_to(FIXTURE_DIR.parent.parent)),
        "paymasterDeposit": str(PAYMASTER_DEPOSIT),
    }


def dev_smart_accounts_section(deployment: dict[str, Any], bundler_urls: dict[int, str],
                               projects: tuple[str, ...] = ("demo",)) -> dict[str, Any]:
    """The engine's `[smart_accounts]` for the dev chains: each chain's bundler and contracts,
    the dev paymaster key, and every chain sponsored for `projects` (0.1 ETH per account a day)."""
    chains: dict[str, Any] = {}
    for chain_id, url in sorted(bundler_urls.items()):
        parts = deployment[str(chain_id)]["smartAccounts"]
        chains[f"eip155:{chain_id}"] = {
            "bundler_url": url, "entry_point": parts["entryPoint"], "factory": parts["factory"],
            "paymaster": parts["paymaster"], "paymaster_signer_key_file": str(PAYMASTER_SIGNER_KEY_PATH),
        }
    return {"chains": chains, "sponsor": {"projects": list(projects), "chains": sorted(chains),
                                          "budget_wei_per_day": 10**17}}
