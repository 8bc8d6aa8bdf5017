"""The real-chain side of the send, swap and names tests: `run_call` runs a session's `Call`
against the engine's real services, as the runtime does (a failure goes back as a message), and
`RealChainHarness` is a Harness whose wallet is a Hardhat node's unlocked account: `pump()`
answers the session's wallet effects from the node (eth_sendTransaction forwarded as it is: a
real transaction on a real chain) and runs its Calls with the real services, until nothing is
left to do. The send, swap and names harnesses subclass it for their own sessions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from modalcore.chains.catalog import Token
from modalcore.core.cmds import Call, CallSettled
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.enginetest import Harness
from modalcore.core.services import AnyService
from modalcore.runtime.services import failure_kind
from modalcore.services.backend.table import default_services
from modalcore_dev.swap_markets import dev_markets
from modalcore.core.services import ServiceTable

UNSUPPORTED = 4200  # EIP-1193: the provider does not support the method


async def run_call(cmd: Call[Any],
                   extra: Callable[[httpx.AsyncClient], ServiceTable] | None = None) -> CallSettled:
    async with httpx.AsyncClient() as http:
        services = {**default_services(http, swap_markets=dev_markets()), **(extra(http) if extra is not None else {})}
        try:
            result = await services[cmd.service](**cmd.args_data)
        except Exception as error:  # as the runtime does: the failure goes back as a message
            return CallSettled(cmd.to, False, None, str(error) or type(error).__name__, dict(cmd.context),
                               failure=failure_kind(error))
    return CallSettled(cmd.to, True, result, "", dict(cmd.context))


def dev_tokens(info: ChainsInfo, chain_id: int = 31337) -> tuple[Token, ...]:
    """The tokens deployed on a dev chain, priced at 1 USD."""
    return tuple(Token(t["address"], t["symbol"], t["name"], int(t["decimals"]), price=1.0)
                 for t in info.chain(chain_id).get("tokens", []))


class WalletError(Exception):
    """A JSON-RPC error the node answered."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class RealChainHarness(Harness):
    """A Harness whose wallet is the node's unlocked account `address` on chain `chain_hex`, and
    whose services are the engine's real ones (plus `extra_services`)."""

    def __init__(self, rpc_urls: Mapping[int, str], address: str, *args: Any, **kwargs: Any) -> None:
        self.rpc_urls: dict[int, str] = dict(rpc_urls)
        self.address = address
        self.chain_hex = "0x7a69"
        self.answered: set[str] = set()  # the effects the wallet took (answered, or left unanswered)
        self.sent: list[str] = []  # the hashes of the transactions the wallet sent
        self.hold_sends = False  # leave eth_sendTransaction unanswered (a lost request)
        self.reject_next: tuple[int, str] | None = None  # the next eth_sendTransaction fails so
        super().__init__(*args, **kwargs)

    def rpc(self, method: str, params: list[Any], chain_id: int | None = None) -> Any:
        """The node's result (of the wallet's chain unless `chain_id`); its error raises WalletError."""
        url = self.rpc_urls[int(self.chain_hex, 16) if chain_id is None else chain_id]
        payload = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                             timeout=30).json()
        if "error" in payload:
            raise WalletError(int(payload["error"]["code"]), str(payload["error"]["message"]))
        return payload["result"]

    def balance(self, address: str) -> int:
        return int(self.rpc("eth_getBalance", [address, "latest"]), 16)

    # ----- hooks of the subclasses

    def extra_services(self, http: httpx.AsyncClient) -> ServiceTable:
        """Services beyond `default_services` (or in place of some)."""
        return {}

    def held(self, method: str) -> bool:
        """The wallet leaves this request unanswered for now (asked again at the next pump)."""
        return self.hold_sends and method == "eth_sendTransaction"

    def answer_other(self, eid: str, method: str, params: list[Any]) -> None:
        """A request beyond accounts, chain id and transactions: unsupported here."""
        self.effect_result(eid, ok=False, code=UNSUPPORTED, message=f"unsupported {method}")

    # ----- the loop

    def _wallet(self, eid: str, method: str, params: list[Any]) -> None:
        if method in ("eth_requestAccounts", "eth_accounts"):
            self.effect_result(eid, result=[self.address.lower()])
        elif method == "eth_chainId":
            self.effect_result(eid, result=self.chain_hex)
        elif method == "eth_sendTransaction":
            if self.reject_next is not None:
                (code, message), self.reject_next = self.reject_next, None
                self.effect_result(eid, ok=False, code=code, message=message)
                return
            try:
                tx_hash = self.rpc(method, params)
            except WalletError as failure:
                self.effect_result(eid, ok=False, code=failure.code, message=failure.message)
                return
            self.sent.append(str(tx_hash))
            self.effect_result(eid, result=tx_hash)
        else:
            self.answer_other(eid, method, params)

    def pump(self, rounds: int = 100) -> None:
        """Answer wallet effects and run service calls until nothing is left to do. A Call run
        here leaves the pending calls (as the runtime settles it); `calls()` still lists it."""
        for _ in range(rounds):
            progressed = False
            for frame in self.pending_effects():
                method = str(frame["req"].get("method"))
                if frame["eid"] in self.answered or self.held(method):
                    continue
                self.answered.add(frame["eid"])
                self._wallet(frame["eid"], method, list(frame["req"].get("params") or []))
                progressed = True
            for cmd in [c for c in self.cmds if isinstance(c, Call)]:
                self.cmds.remove(cmd)
                self.deliver(asyncio.run(run_call(cmd, self.extra_services)))
                progressed = True
            if not progressed:
                return
        raise AssertionError("the engine kept asking for more")
