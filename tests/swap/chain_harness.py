"""A swap session whose wallet is a Hardhat node's unlocked account and whose services are the
engine's real ones (`services.table.default_services`): eth_sendTransaction effects are sent to
the node as they are, `Call`s (balances, swap_quote, tx_receipt, history) run for real."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from modalcore import samples
from modalcore.chains.catalog import Token
from modalcore.core.cmds import Call, CallSettled
from modalcore.devchain.pytest_plugin import ChainsInfo
from modalcore.enginetest import Harness
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.slices.swap_quote import QUOTE_DEBOUNCE_MS
from modalcore.wire.frames import AnnouncedWallet, Env

from ..chain_services import run_call
from .harness import local_networks


class ChainHarness(Harness):
    def __init__(self, info: ChainsInfo, address: str, extra_tokens: tuple[Token, ...] = ()) -> None:
        self.rpc_urls = dict(info.rpc_urls)
        tokens = tuple(Token(t["address"], t["symbol"], t["name"], int(t["decimals"]), price=1.0)
                       for t in info.chain(31337)["tokens"]) + extra_tokens
        options = {"networks": ["eip155:31337", "eip155:31338"]}
        model = initial_model("test-project", "http://localhost:8000", parse_options(options),
                              Env.model_validate(samples.ENV),
                              [AnnouncedWallet.model_validate(samples.DEV_WALLET)],
                              known_networks=local_networks(self.rpc_urls, tokens, native_price=None))
        self.address = address
        self.answered: set[str] = set()
        self.sent: list[str] = []  # the hashes of the transactions the wallet sent
        self.hold_sends = False  # leave eth_sendTransaction unanswered
        super().__init__(model, wallets=[samples.DEV_WALLET], now=int(time.time() * 1000))

    def rpc(self, method: str, params: list[Any]) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return httpx.post(self.rpc_urls[31337], json=body, timeout=30).json()

    def _wallet(self, frame: dict[str, Any]) -> None:
        method, params = frame["req"]["method"], frame["req"]["params"]
        if method in ("eth_requestAccounts", "eth_accounts"):
            self.effect_result(frame["eid"], result=[self.address.lower()])
        elif method == "eth_chainId":
            self.effect_result(frame["eid"], result="0x7a69")
        elif method == "eth_sendTransaction":
            payload = self.rpc(method, params)
            if "error" in payload:
                error = payload["error"]
                self.effect_result(frame["eid"], ok=False, code=int(error["code"]), message=str(error["message"]))
                return
            self.sent.append(str(payload["result"]))
            self.effect_result(frame["eid"], result=payload["result"])
        else:
            self.effect_result(frame["eid"], ok=False, code=4200, message=f"unsupported {method}")

    async def _run(self, cmd: Call) -> CallSettled:
        return await run_call(cmd)

    def pump(self, rounds: int = 50) -> None:
        """Answer wallet effects and run service calls until nothing is left to do."""
        for _ in range(rounds):
            progressed = False
            for frame in self.pending_effects():
                if frame["eid"] in self.answered:
                    continue
                if self.hold_sends and frame["req"].get("method") == "eth_sendTransaction":
                    continue
                self.answered.add(frame["eid"])
                self._wallet(frame)
                progressed = True
            for cmd in [c for c in self.cmds if isinstance(c, Call)]:
                self.cmds.remove(cmd)
                self.deliver(asyncio.run(self._run(cmd)))
                progressed = True
            if not progressed:
                return
        raise AssertionError("the engine kept asking for more")

    def open_swap(self) -> None:
        self.connect_wallet(address=self.address)
        self.pump()
        if not self.model.modal.open:
            self.host("open")
        self.press("account/feature/swaps")

    def quote(self, amount: str, source: str, target: str) -> None:
        if self.model.swap.from_token != source:
            self.press("swap/from/token")
            self.press(f"swap/pick/from/{source}")
        if self.model.swap.to_token != target:
            self.press("swap/to/token")
            self.press(f"swap/pick/to/{target}")
        self.intent("swap/amount", "change", {"value": amount})
        self.advance(QUOTE_DEBOUNCE_MS)
        self.pump()
