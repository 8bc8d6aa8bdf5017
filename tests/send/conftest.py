"""Sessions for the send and activity tests.

`dev_session` here is the `Harness` of tests/devwallet.py with the local networks carrying their
two tokens. `ChainHarness`, a Harness, plays both the browser wallet and the engine runtime
against real Hardhat nodes:
it answers `eip1193` effects from the node's unlocked dev accounts (eth_sendTransaction is
forwarded as is: a real transaction on a real chain) and runs `Call` commands with the real
services.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

import httpx
import pytest

from modalcore.chains.catalog import Network, Token, catalog
from modalcore.core.cmds import Call, CallSettled
from modalcore.enginetest import Harness
from modalcore.slices.model import Model
from modalcore.wire.frames import AnnouncedWallet, Env

from .. import devwallet
from ..chain_services import run_call
from ..devwallet import ADDRESS, DEV_WALLET, OTHER, WALLET_NODE, dev_settings

__all__ = ["ADDRESS", "DEV_WALLET", "OTHER", "WALLET_NODE", "ChainHarness", "dev_session", "local_networks"]
DEMO = Token("0x5FbDB2315678afecb367f032d93F642f64180aa3", "DEMO", "Demo Token", 18, price=2.0)
TUSD = Token("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", "TUSD", "Test USD", 6, price=1.0)



def local_networks(rpc_urls: dict[int, str] | None = None,
                   tokens: tuple[Token, ...] = (DEMO, TUSD)) -> dict[str, Network]:
    """The catalog, with the two local chains carrying the dev tokens (and their RPC urls)."""
    known = catalog()
    overrides = []
    for chain_id in (31337, 31338):
        network = known[f"eip155:{chain_id}"]
        urls = (rpc_urls[chain_id],) if rpc_urls and chain_id in rpc_urls else network.rpc_urls
        overrides.append(replace(network, rpc_urls=urls, tokens=tokens))
    return catalog(overrides)


def dev_session(options: dict[str, Any] | None = None, *, wallets: list[AnnouncedWallet] | None = None,
                env: Env | None = None, networks: dict[str, Network] | None = None, now: int = 0) -> Harness:
    """The dev session, with the local networks carrying the dev tokens by default."""
    return devwallet.dev_session(options, wallets=wallets, env=env, now=now,
                                 networks=networks if networks is not None else local_networks())


class ChainHarness(Harness):
    """A Harness whose wallet is a Hardhat node's unlocked account and whose services are real."""

    def __init__(self, info: Any, address: str, *, model: Model | None = None, now: int | None = None,
                 options: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.rpc_urls: dict[int, str] = dict(info.rpc_urls)
        self.address = address
        self.answered: set[str] = set()
        self.sent: list[str] = []  # hashes of the transactions the wallet sent
        self.ran = 0
        self.reject_next: tuple[int, str] | None = None
        self.hold_sends = False  # leave eth_sendTransaction unanswered (a lost request)
        tokens = tuple(Token(t["address"], t["symbol"], t["name"], int(t["decimals"]), price=1.0)
                       for t in info.chain(31337)["tokens"])
        settings = dev_settings(options, networks=local_networks(self.rpc_urls, tokens))
        super().__init__(model, now=int(time.time() * 1000) if now is None else now, **{**settings, **kwargs})
        self.chain_hex = "0x7a69"

    def rpc(self, method: str, params: list[Any], chain_id: int = 31337) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        payload = httpx.post(self.rpc_urls[chain_id], json=body, timeout=30).json()
        if "error" in payload:
            raise WalletError(int(payload["error"]["code"]), str(payload["error"]["message"]))
        return payload["result"]

    def _wallet(self, frame: dict[str, Any]) -> None:
        req = frame["req"]
        method, params = req["method"], req["params"]
        if method in ("eth_requestAccounts", "eth_accounts"):
            self.answer_last([self.address.lower()], eid=frame["eid"])
        elif method == "eth_chainId":
            self.answer_last(self.chain_hex, eid=frame["eid"])
        elif method == "eth_sendTransaction":
            if self.hold_sends:
                return
            if self.reject_next is not None:
                (code, message), self.reject_next = self.reject_next, None
                self.answer_last(code=code, message=message, eid=frame["eid"])
                return
            try:
                result = self.rpc(method, params, int(self.chain_hex, 16))
            except WalletError as failure:
                self.answer_last(code=failure.code, message=failure.message, eid=frame["eid"])
                return
            self.sent.append(str(result))
            self.answer_last(result, eid=frame["eid"])
        else:
            self.answer_last(code=4200, message=f"unsupported {method}", eid=frame["eid"])

    async def _run(self, cmd: Call) -> CallSettled:
        return await run_call(cmd)

    def pump(self, rounds: int = 100) -> None:
        """Answer wallet effects and run service calls until nothing is left to do."""
        for _ in range(rounds):
            progressed = False
            for frame in [f for f in self.frames if f["t"] == "effect" and f["eid"] not in self.answered]:
                if self.hold_sends and frame["req"].get("method") == "eth_sendTransaction":
                    continue
                self.answered.add(frame["eid"])
                if frame["eid"] in self.session.effects:
                    self._wallet(frame)
                    progressed = True
            pending, self.ran = self.log[self.ran:], len(self.log)
            for cmd in pending:
                if isinstance(cmd, Call):
                    self.deliver(asyncio.run(self._run(cmd)))
                    progressed = True
            if not progressed:
                return
        raise AssertionError("the engine kept asking for more")


class WalletError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@pytest.fixture
def driver() -> Harness:
    return dev_session()
