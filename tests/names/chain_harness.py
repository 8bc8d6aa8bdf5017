"""A Harness whose wallet is a Hardhat node's unlocked dev account and whose services are the
real ones (ENS over eth_call, the engine's own name registry in SQLite, balances, history, fee
estimates): every effect the session asks is answered by the node, every Call runs for real."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.chains.catalog import Network, Token, catalog
from modalcore.core.cmds import Call, CallSettled
from modalcore.devchain.pytest_plugin import ChainsInfo
from modalcore.enginetest import Harness
from modalcore.rules.names import AUTH_CONNECTOR_ID
from modalcore.services.name_registry import NameRegistry
from modalcore.services.names import name_services
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, Env

from ..chain_services import run_call

DEV_WALLET = {"uuid": "dev-uuid", "name": "Dev Wallet", "icon": "data:image/svg+xml,dev", "rdns": "dev.wallet"}
# a wallet whose connector id is the auth connector's (SPEC §2 ID_AUTH): the embedded wallet
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
        entry = info.chain(chain_id)
        tokens = tuple(Token(t["address"], t["symbol"], t["name"], int(t["decimals"]), price=1.0)
                       for t in entry.get("tokens", []))
        overrides.append(replace(known[f"eip155:{chain_id}"], rpc_urls=(info.rpc_urls[chain_id],),
                                 tokens=tokens, ens_registry=str(entry["ens"]["registry"])))
    return catalog(overrides)


class ChainHarness(Harness):
    def __init__(self, info: ChainsInfo, account: int = 0, *, registry: NameRegistry | None = None,
                 wallets: tuple[dict[str, Any], ...] = (DEV_WALLET,), **kwargs: Any) -> None:
        self.info = info
        self.address: str = info.chain(31337)["accounts"][account]
        self.key = DEV_KEYS[account]
        assert Account.from_key(self.key).address == self.address
        self.registry = registry
        self.chain_hex = "0x7a69"
        self.answered: set[str] = set()
        self.ran = 0
        self.hold_signatures = False
        self.forge_signature = False
        self.sent: list[str] = []  # hashes of the transactions the wallet sent
        now = int(time.time() * 1000)
        model = initial_model("test-project", "http://localhost:8000",
                              parse_options({"networks": ["eip155:31337", "eip155:31338"]}), Env(),
                              [AnnouncedWallet.model_validate(w) for w in wallets], dev_networks(info))
        super().__init__(model, now=now, wallets=wallets, **kwargs)

    def rpc(self, method: str, params: list[Any]) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        payload = httpx.post(self.info.rpc_urls[int(self.chain_hex, 16)], json=body, timeout=30).json()
        if "error" in payload:
            raise AssertionError(payload["error"])
        return payload["result"]

    def balance(self, address: str) -> int:
        return int(self.rpc("eth_getBalance", [address, "latest"]), 16)

    def _wallet(self, frame: dict[str, Any]) -> None:
        req = frame["req"]
        method, params = req.get("method"), req.get("params") or []
        if method in ("eth_requestAccounts", "eth_accounts"):
            self.effect_result(frame["eid"], result=[self.address.lower()])
        elif method == "eth_chainId":
            self.effect_result(frame["eid"], result=self.chain_hex)
        elif method == "eth_sendTransaction":
            tx_hash = self.rpc(method, params)
            self.sent.append(str(tx_hash))
            self.effect_result(frame["eid"], result=tx_hash)
        elif method == "personal_sign":
            if self.hold_signatures:
                return
            message = bytes.fromhex(str(params[0]).removeprefix("0x")).decode()
            key = FORGER.key if self.forge_signature else self.key
            signed = Account.sign_message(encode_defunct(text=message), private_key=key)
            self.effect_result(frame["eid"], result="0x" + signed.signature.hex().removeprefix("0x"))
        else:
            self.effect_result(frame["eid"], ok=False, code=4200, message=f"unsupported {method}")

    async def _run(self, cmd: Call) -> CallSettled:
        return await run_call(cmd, lambda http: name_services(http, self.registry))

    def pump(self, rounds: int = 100) -> None:
        """Answer wallet effects and run service calls until nothing is left to do."""
        for _ in range(rounds):
            progressed = False
            for frame in [f for f in self.frames if f["t"] == "effect" and f["eid"] not in self.answered]:
                if frame["eid"] in self.session.effects:
                    if self.hold_signatures and frame["req"].get("method") == "personal_sign":
                        continue
                    self.answered.add(frame["eid"])
                    self._wallet(frame)
                    progressed = True
            pending, self.ran = self.cmds[self.ran:], len(self.cmds)
            for cmd in pending:
                if isinstance(cmd, Call):
                    self.deliver(asyncio.run(self._run(cmd)))
                    progressed = True
            if not progressed:
                return
        raise AssertionError("the engine kept asking for more")

    def connect(self, wallet: str = "Dev Wallet") -> None:
        self.host("open")
        item = next(n for n in self.find_text(wallet, exact=True) if n.t == "wallet-item")
        self.press(item.id)
        self.pump()
