"""A Harness whose wallet is a Hardhat node's unlocked dev account and whose services are the
real ones (ENS over eth_call, the engine's own name registry in SQLite, balances, history, fee
estimates): every effect the session asks is answered by the node (tests/chain_services.py
`RealChainHarness`) or signed with the account's key, every Call runs for real."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.chains.catalog import Network, catalog
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.rules.names import AUTH_CONNECTOR_ID
from modalcore.core.services import AnyService
from modalcore.services.backend.name_registry import NameRegistry
from modalcore.services.backend.names import name_services
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, Env
from modalcore.core.services import ServiceTable

from ..chain_services import RealChainHarness, dev_tokens

DEV_WALLET = {"uuid": "dev-uuid", "name": "Dev Wallet", "icon": "data:image/svg+xml,dev", "rdns": "dev.wallet"}
# a wallet whose connector id is the auth connector's (behaviour.md §2 ID_AUTH): the embedded wallet
# stands behind that id; here the node's unlocked account answers for it
AUTH_WALLET = {"uuid": AUTH_CONNECTOR_ID, "name": "Email Wallet", "icon": "data:image/svg+xml,e", "rdns": ""}
# Hardhat's well-known dev keys (accounts 0-4): the test signs as the wallet would
DEV_KEYS = (
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3d73b974a8ff4a2e",
    "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
    "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
)


FORGER = Account.from_key("0x" + "42" * 32)  # signs in place of the account when forging


def dev_networks(info: ChainsInfo) -> dict[str, Network]:
    """The catalog with both dev chains on their nodes, with their tokens and ENS registry."""
    known = catalog()
    overrides = []
    for chain_id in info.chain_ids:
        overrides.append(replace(known[f"eip155:{chain_id}"], rpc_urls=(info.rpc_urls[chain_id],),
                                 tokens=dev_tokens(info, chain_id),
                                 ens_registry=str(info.chain(chain_id)["ens"]["registry"])))
    return catalog(overrides)


class ChainHarness(RealChainHarness):
    """Also signs personal_sign with the account's key (or `forge_signature`: another key's), or
    leaves it unanswered (`hold_signatures`); the names services run on `registry`."""

    def __init__(self, info: ChainsInfo, account: int = 0, *, registry: NameRegistry | None = None,
                 wallets: tuple[dict[str, Any], ...] = (DEV_WALLET,), **kwargs: Any) -> None:
        self.info = info
        self.key = DEV_KEYS[account]
        self.registry = registry
        self.hold_signatures = False
        self.forge_signature = False
        address: str = info.chain(31337)["accounts"][account]
        assert Account.from_key(self.key).address == address
        model = initial_model("test-project", "http://localhost:8000",
                              parse_options({"networks": ["eip155:31337", "eip155:31338"]}), Env(),
                              [AnnouncedWallet.model_validate(w) for w in wallets], dev_networks(info))
        super().__init__(info.rpc_urls, address, model, now=int(time.time() * 1000), wallets=wallets, **kwargs)

    def extra_services(self, http: httpx.AsyncClient) -> ServiceTable:
        return name_services(http, self.registry)

    def held(self, method: str) -> bool:
        return super().held(method) or (self.hold_signatures and method == "personal_sign")

    def answer_other(self, eid: str, method: str, params: list[Any]) -> None:
        if method != "personal_sign":
            return super().answer_other(eid, method, params)
        message = bytes.fromhex(str(params[0]).removeprefix("0x")).decode()
        key = FORGER.key if self.forge_signature else self.key
        signed = Account.sign_message(encode_defunct(text=message), private_key=key)
        self.effect_result(eid, result="0x" + signed.signature.hex().removeprefix("0x"))

    def connect(self, wallet: str = "Dev Wallet") -> None:
        self.host("open")
        item = next(n for n in self.find_text(wallet, exact=True) if n.t == "wallet-item")
        self.press(item.id)
        self.pump()
