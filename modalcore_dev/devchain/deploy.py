"""Deploy the dev-chain contracts with eth_sendTransaction from the node's dev account 0.

On each chain, in this order (deployer nonces 0, 1, 2, so the addresses are the same on every
fresh Hardhat chain and on both chains):

- "Demo Token" DEMO, 18 decimals: OpenZeppelin 4's published ERC20PresetFixedSupply artifact;
- "Test USD" TUSD, 6 decimals: chain/contracts/TestUSD.sol (OpenZeppelin 4 ERC20, solc-js);
- DevContractWallet: an EIP-1271 contract wallet owned by dev account 0.

Then dev accounts 1..4 get FUND_AMOUNT of each token (account 0 keeps the rest) and the
contract wallet gets 1 ETH and WALLET_FUND_AMOUNT of each token.

After all of that (so the addresses above stay what they were), an ERC-721 collection:

- "Demo Collectibles" DCOL: OpenZeppelin 4's published ERC721PresetMinterPauserAutoId artifact
  (base token URI https://example.invalid/dcol/, never fetched); tokens 0, 1, 2 minted to dev
  account 0 and 3, 4 to dev account 1.

After that, a local Uniswap V2 market (market.py): WETH9, UniswapV2Factory, UniswapV2Router02
from the published npm artifacts and the ETH/DEMO, ETH/TUSD and DEMO/TUSD pools, funded by
dev account 0. Then ENS (ens.py): registry, public resolver, reverse registrar, and the names
alice.eth, bob.eth, carol.eth for dev accounts 0, 1, 2 (forward and reverse records). Last,
Farcaster's IdRegistry (farcaster.py) with dev accounts 1, 2, 3 registered as FIDs 1, 2, 3.
Then ERC-4337 (smart_accounts.py): the EntryPoint v0.7, the smart account factory and a
verifying paymaster, at CREATE2 addresses sent by dev account 19 (dev account 0's nonces untouched).

Artifacts are read from the committed fixtures/chain/contracts/ (regenerate with
`node chain/compile.mjs`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eth_utils.address import to_checksum_address

from modalcore_dev.devchain.contracts import ARTIFACT_DIR, FIXTURE_DIR, DeploymentError, deploy_contract, load_artifact
from modalcore_dev.devchain.ens import deploy_ens, describe_ens, register_names
from modalcore_dev.devchain.farcaster import deploy_id_registry, describe_id_registry
from modalcore_dev.devchain.market import NATIVE, TokenRef, deploy_market, describe_market
from modalcore_dev.devchain.rpc import Rpc
from modalcore_dev.devchain.smart_accounts import deploy_smart_accounts, describe_smart_accounts

__all__ = ["ARTIFACT_DIR", "DEPLOYMENT_PATH", "FIXTURE_DIR", "DeploymentError", "DeploymentMismatch",
           "check_against", "deploy_all", "deploy_chain", "load_artifact", "load_deployment",
           "write_deployment"]

DEPLOYMENT_PATH = FIXTURE_DIR / "deployment.json"

EIP1271_MAGIC_VALUE = "0x1626ba7e"
FUNDED_ACCOUNTS = 5  # dev accounts 0..4
WALLET_ETH = 10**18


@dataclass(frozen=True)
class TokenSpec:
    artifact: str
    name: str
    symbol: str
    decimals: int
    supply_units: int = 1_000_000
    fund_units: int = 10_000
    wallet_fund_units: int = 1_000

    @property
    def unit(self) -> int:
        return int(10**self.decimals)


TOKENS: tuple[TokenSpec, ...] = (
    TokenSpec("ERC20PresetFixedSupply", "Demo Token", "DEMO", 18),
    TokenSpec("TestUSD", "Test USD", "TUSD", 6),
)
WALLET_ARTIFACT = "DevContractWallet"


@dataclass(frozen=True)
class CollectionSpec:
    """An ERC-721 collection; `mints` lists the dev account index of each minted token, in
    mint order (the preset numbers its tokens 0, 1, 2, ...)."""

    artifact: str
    name: str
    symbol: str
    base_uri: str
    mints: tuple[int, ...]


COLLECTIONS: tuple[CollectionSpec, ...] = (
    CollectionSpec("ERC721PresetMinterPauserAutoId", "Demo Collectibles", "DCOL",
                   "https://example.invalid/dcol/", (0, 0, 0, 1, 1)),
)


class DeploymentMismatch(DeploymentError):
    """Deployed addresses differ from the committed fixtures/chain/deployment.json."""


def _token_refs(token_addresses: list[str]) -> dict[str, TokenRef]:
    return {spec.symbol: TokenRef(address, spec.unit)
            for spec, address in zip(TOKENS, token_addresses, strict=True)}


def _read_token(rpc: Rpc, address: str) -> tuple[str, str, int, int]:
    (name,) = rpc.eth_call(address, "name()", returns=["string"])
    (symbol,) = rpc.eth_call(address, "symbol()", returns=["string"])
    (decimals,) = rpc.eth_call(address, "decimals()", returns=["uint8"])
    (supply,) = rpc.eth_call(address, "totalSupply()", returns=["uint256"])
    return str(name), str(symbol), int(decimals), int(supply)


def deploy_chain(rpc_url: str, expected: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Deploy and fund everything on the (fresh) chain at `rpc_url`; return its entry.

    When the deployer's nonce is not 0 and `expected` names contracts that already have code,
    the chain is taken as already deployed and its entry is re-read (idempotent `deploy`).
    """
    with Rpc(rpc_url) as rpc:
        chain_id = rpc.chain_id()
        accounts = [str(to_checksum_address(a)) for a in rpc.accounts()[:FUNDED_ACCOUNTS]]
        if len(accounts) < FUNDED_ACCOUNTS:
            raise DeploymentError(f"chain {chain_id} has fewer than {FUNDED_ACCOUNTS} dev accounts")
        deployer = accounts[0]
        if rpc.nonce(deployer) != 0:
            return _existing(rpc, chain_id, rpc_url, accounts, expected)

        tokens: list[dict[str, Any]] = []
        for spec in TOKENS:
            address = deploy_contract(
                rpc, deployer, spec.artifact,
                ["string", "string", "uint256", "address"],
                [spec.name, spec.symbol, spec.supply_units * spec.unit, deployer],
            )
            tokens.append({"address": address, "spec": spec})
        wallet = deploy_contract(rpc, deployer, WALLET_ARTIFACT, ["address"], [deployer])

        for entry in tokens:
            spec = entry["spec"]
            for account in accounts[1:]:
                rpc.send_call(deployer, entry["address"], "transfer(address,uint256)",
                              [account, spec.fund_units * spec.unit])
            rpc.send_call(deployer, entry["address"], "transfer(address,uint256)",
                          [wallet, spec.wallet_fund_units * spec.unit])
        rpc.transact({"from": deployer, "to": wallet, "value": hex(WALLET_ETH)})

        collections: list[str] = []
        for collection in COLLECTIONS:
            address = deploy_contract(rpc, deployer, collection.artifact, ["string", "string", "string"],
                              [collection.name, collection.symbol, collection.base_uri])
            for index in collection.mints:
                rpc.send_call(deployer, address, "mint(address)", [accounts[index]])
            collections.append(address)

        token_addresses = [str(t["address"]) for t in tokens]
        market = deploy_market(rpc, deployer, _token_refs(token_addresses))
        ens = deploy_ens(rpc, deployer)
        register_names(rpc, deployer, ens, accounts)
        id_registry = deploy_id_registry(rpc, deployer, accounts)
        smart_accounts = deploy_smart_accounts(rpc)

        return _describe(rpc, chain_id, rpc_url, accounts, token_addresses, wallet, collections,
                         market, ens, id_registry, smart_accounts)


def _existing(
    rpc: Rpc, chain_id: int, rpc_url: str, accounts: list[str], expected: Mapping[str, Any] | None
) -> dict[str, Any]:
    if not expected:
        raise DeploymentError(
            f"chain {chain_id} at {rpc_url} is not fresh (deployer nonce > 0) and there is no "
            "expected deployment to check it against; restart the node"
        )
    token_addresses = [str(t["address"]) for t in expected["tokens"]]
    wallet = str(expected["eip1271Wallet"]["address"])
    collections = [str(c["address"]) for c in expected.get("nfts", [])]
    if len(collections) != len(COLLECTIONS):
        raise DeploymentError(
            f"chain {chain_id} at {rpc_url} is not fresh and the expected deployment names "
            f"{len(collections)} NFT collection(s), not {len(COLLECTIONS)}; restart the node"
        )
    if "uniswapV2" not in expected or "ens" not in expected:
        raise DeploymentError(
            f"chain {chain_id} at {rpc_url} is not fresh and the expected deployment has no "
            "Uniswap V2 market or ENS; restart the node"
        )
    market = {key: str(expected["uniswapV2"][key]) for key in ("weth", "factory", "router")}
    ens = {key: str(expected["ens"][key])
           for key in ("registry", "publicResolver", "reverseRegistrar")}
    id_registry = str(expected.get("farcaster", {}).get("idRegistry", ""))
    for address in [*token_addresses, wallet, *collections, *market.values(), *ens.values(),
                    *([id_registry] if id_registry else [])]:
        if rpc.code(address) in ("0x", "0x0", ""):
            raise DeploymentError(
                f"chain {chain_id} at {rpc_url} is not fresh and has no contract at {address}; "
                "restart the node"
            )
    return _describe(rpc, chain_id, rpc_url, accounts, token_addresses, wallet, collections,
                     market, ens, id_registry, deploy_smart_accounts(rpc))


def _pool_holdings(market: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """symbol → {pair address: raw amount} right after deployment."""
    holdings: dict[str, dict[str, int]] = {spec.symbol: {} for spec in TOKENS}
    for pair in market["pairs"]:
        for symbol, amount in pair["liquidity"].items():
            if symbol != NATIVE:
                holdings[symbol][str(pair["address"])] = int(amount)
    return holdings


def _describe(
    rpc: Rpc, chain_id: int, rpc_url: str, accounts: list[str], token_addresses: list[str],
    wallet: str, collection_addresses: list[str], market_addresses: Mapping[str, str],
    ens_addresses: dict[str, str], id_registry: str = "", smart_accounts: dict[str, str] | None = None,
) -> dict[str, Any]:
    tokens: list[dict[str, Any]] = []
    for spec, address in zip(TOKENS, token_addresses, strict=True):
        name, symbol, decimals, supply = _read_token(rpc, address)
        if (name, symbol, decimals) != (spec.name, spec.symbol, spec.decimals):
            raise DeploymentError(
                f"{address} on chain {chain_id} is {name!r} {symbol} ({decimals} decimals), "
                f"expected {spec.name!r} {spec.symbol} ({spec.decimals})"
            )
        tokens.append({
            "address": address,
            "symbol": symbol,
            "name": name,
            "decimals": decimals,
            "totalSupply": str(supply),
            "artifact": spec.artifact,
        })
    (owner,) = rpc.eth_call(wallet, "owner()", returns=["address"])
    nfts: list[dict[str, Any]] = []
    for collection, address in zip(COLLECTIONS, collection_addresses, strict=True):
        (name,) = rpc.eth_call(address, "name()", returns=["string"])
        (symbol,) = rpc.eth_call(address, "symbol()", returns=["string"])
        if (name, symbol) != (collection.name, collection.symbol):
            raise DeploymentError(
                f"{address} on chain {chain_id} is {name!r} {symbol}, "
                f"expected {collection.name!r} {collection.symbol}"
            )
        nfts.append({
            "address": address,
            "symbol": collection.symbol,
            "name": collection.name,
            "baseTokenURI": collection.base_uri,
            "artifact": collection.artifact,
            # Owners right after deployment: token id → dev account.
            "owners": {str(token_id): accounts[index]
                       for token_id, index in enumerate(collection.mints)},
        })
    try:
        market = describe_market(rpc, market_addresses, _token_refs(token_addresses))
    except ValueError as error:
        raise DeploymentError(f"chain {chain_id}: {error}") from error
    pools = _pool_holdings(market)
    return {
        "chainId": chain_id,
        "name": f"Dev Chain {chain_id}",
        "rpc": rpc_url,
        "nativeCurrency": {"name": "Ether", "symbol": "ETH", "decimals": 18},
        "deployer": accounts[0],
        "accounts": accounts,
        "tokens": tokens,
        "eip1271Wallet": {
            "address": wallet,
            "owner": to_checksum_address(str(owner)),
            "artifact": WALLET_ARTIFACT,
            "magicValue": EIP1271_MAGIC_VALUE,
        },
        # Balances right after deployment (raw integer strings, smallest units).
        "funding": {
            spec.symbol: {
                **{a: str(spec.fund_units * spec.unit) for a in accounts[1:]},
                accounts[0]: str(
                    (spec.supply_units - spec.fund_units * (len(accounts) - 1)
                     - spec.wallet_fund_units) * spec.unit - sum(pools[spec.symbol].values())
                ),
                wallet: str(spec.wallet_fund_units * spec.unit),
                **{pair: str(amount) for pair, amount in pools[spec.symbol].items()},
            }
            for spec in TOKENS
        },
        "walletEth": str(WALLET_ETH),
        "nfts": nfts,
        "uniswapV2": market,
        "ens": describe_ens(rpc, ens_addresses, accounts),
        **({"farcaster": describe_id_registry(rpc, id_registry, accounts)} if id_registry else {}),
        **({"smartAccounts": describe_smart_accounts(rpc, smart_accounts)} if smart_accounts else {}),
    }


def _addresses(entry: Mapping[str, Any]) -> dict[str, list[str]]:
    """Contract addresses by section; a section the entry does not have is absent."""
    sections: dict[str, list[str]] = {
        "tokens": [str(t["address"]) for t in entry["tokens"]],
        "eip1271Wallet": [str(entry["eip1271Wallet"]["address"])],
        "nfts": [str(c["address"]) for c in entry.get("nfts", [])],
    }
    if "uniswapV2" in entry:
        market = entry["uniswapV2"]
        sections["uniswapV2"] = ([str(market[k]) for k in ("weth", "factory", "router")]
                                 + [str(p["address"]) for p in market["pairs"]])
    if "ens" in entry:
        sections["ens"] = [str(entry["ens"][k])
                           for k in ("registry", "publicResolver", "reverseRegistrar")]
    if "farcaster" in entry:
        sections["farcaster"] = [str(entry["farcaster"]["idRegistry"])]
    if "smartAccounts" in entry:
        sections["smartAccounts"] = [str(entry["smartAccounts"][k]) for k in ("entryPoint", "factory", "paymaster")]
    return sections


def check_against(deployment: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    """Raise DeploymentMismatch when a chain's contract addresses differ from `expected` (in
    every section `expected` has: a fixture written before a section existed still checks the
    addresses it names, so it can be regenerated)."""
    for chain_id, entry in deployment.items():
        if chain_id not in expected:
            continue
        deployed, wanted = _addresses(entry), _addresses(expected[chain_id])
        mismatched = {key: deployed.get(key) for key in wanted if deployed.get(key) != wanted[key]}
        if mismatched:
            raise DeploymentMismatch(
                f"chain {chain_id}: deployed {mismatched}, "
                f"fixture has { {key: wanted[key] for key in mismatched} }"
            )


def load_deployment(path: Path = DEPLOYMENT_PATH) -> dict[str, Any] | None:
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def write_deployment(deployment: Mapping[str, Any], path: Path = DEPLOYMENT_PATH) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(deployment, indent=2) + "\n")


def deploy_all(
    rpc_urls: Iterable[str] | Mapping[int, str], expected_path: Path | None = DEPLOYMENT_PATH
) -> dict[str, Any]:
    """Deploy on every chain; return {"<chainId>": entry}. Verifies the addresses against the
    committed deployment fixture (`expected_path`, None to skip)."""
    urls = list(rpc_urls.values()) if isinstance(rpc_urls, Mapping) else list(rpc_urls)
    expected = load_deployment(expected_path) if expected_path is not None else None
    deployment: dict[str, Any] = {}
    for url in urls:
        with Rpc(url) as rpc:
            chain_key = str(rpc.chain_id())
        entry = deploy_chain(url, expected.get(chain_key) if expected else None)
        deployment[chain_key] = entry
    if expected is not None:
        check_against(deployment, expected)
    return dict(sorted(deployment.items()))
