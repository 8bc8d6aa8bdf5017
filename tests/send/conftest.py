"""Harnesses for the send and activity tests.

`Driver` is the sans-IO harness of tests/connect (a Session driven by intents, effect results
and messages on a fake clock), with the local networks carrying their two tokens.
`ChainDriver` plays both the browser wallet and the engine runtime against real Hardhat nodes:
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
from modalcore.engine.cmds import Call, CallSettled, Cmd, StartTimer, Track
from modalcore.engine.model import initial_model
from modalcore.engine.msg import Msg
from modalcore.engine.session import Output, Session
from modalcore.services import default_services
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, EffectError, EffectResult, Env, Intent, WalletEvent

PLUGIN = "modalcore.devchain.pytest_plugin"

ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
DEV_WALLET = AnnouncedWallet(uuid="uuid-1", name="Dev Wallet", icon="data:x", rdns="dev.modalcore.devwallet")
WALLET_NODE = "connect/wallet/dev.modalcore.devwallet"
DEMO = Token("0x5FbDB2315678afecb367f032d93F642f64180aa3", "DEMO", "Demo Token", 18, price=2.0)
TUSD = Token("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", "TUSD", "Test USD", 6, price=1.0)


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin(PLUGIN):
        config.pluginmanager.import_plugin(PLUGIN)


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


class Driver:
    def __init__(self, options: dict[str, Any] | None = None, wallets: list[AnnouncedWallet] | None = None,
                 env: Env | None = None, networks: dict[str, Network] | None = None, now: int = 0) -> None:
        opts = {"networks": ["eip155:31337", "eip155:31338"], **(options or {})}
        model = initial_model("demo", "http://localhost:1", parse_options(opts), env or Env(),
                              wallets if wallets is not None else [DEV_WALLET],
                              known_networks=networks if networks is not None else local_networks())
        self.now = now
        self.session = Session("s1", model, now)
        self.seq = 0
        self.frames: list[dict[str, Any]] = []
        self.cmds: list[Cmd] = []
        self.timers: dict[str, tuple[int, Msg]] = {}
        self._take(self.session.welcome("token", resumed=False, last=None))

    @property
    def model(self) -> Any:
        return self.session.model

    def _take(self, out: Output) -> Output:
        self.frames.extend(out.frames)
        self.cmds.extend(out.cmds)
        for cmd in out.cmds:
            if isinstance(cmd, StartTimer):
                self.timers[cmd.key] = (self.now + cmd.delay_ms, cmd.msg)
            elif type(cmd).__name__ == "CancelTimer":
                self.timers.pop(cmd.key, None)  # type: ignore[union-attr]
        return out

    def intent(self, node: str, act: str = "press", iid: str | None = None, **args: Any) -> Output:
        self.seq += 1
        frame = Intent(t="intent", s=self.seq, a=self.session.out_seq, iid=iid or f"i{self.seq}", node=node,
                       act=act, args=args)
        return self._take(self.session.receive(frame, self.now))

    def ack_of(self, out: Output) -> str:
        return str(next(f["status"] for f in out.frames if f["t"] == "intent_ack"))

    def last_effect(self) -> dict[str, Any]:
        return [f for f in self.frames if f["t"] == "effect"][-1]

    def effects(self, method: str | None = None) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["t"] == "effect"
                and (method is None or f["req"].get("method") == method)]

    def answer(self, result: Any = None, *, error: tuple[int, str] | None = None, eid: str | None = None) -> Output:
        self.seq += 1
        eid = eid or self.last_effect()["eid"]
        frame = EffectResult(
            t="effect_result", s=self.seq, a=self.session.out_seq, eid=eid, ok=error is None,
            result=result, error=EffectError(code=error[0], message=error[1]) if error else None)
        return self._take(self.session.receive(frame, self.now))

    def wallet_event(self, event: str, data: Any, connector: str = "uuid-1") -> Output:
        self.seq += 1
        frame = WalletEvent(t="wallet_event", s=self.seq, a=self.session.out_seq, connector=connector,
                            event=event, data=data)  # type: ignore[arg-type]
        return self._take(self.session.receive(frame, self.now))

    def deliver(self, msg: Msg) -> Output:
        return self._take(self.session.deliver(msg, self.now))

    def rejoin(self, *, reloaded: bool, last: int | None = None) -> Output:
        """The socket dropped and the page joined again (after a reload: no `last`)."""
        return self._take(self.session.welcome("token", resumed=True, last=None if reloaded else last,
                                               now=self.now, wallets=[DEV_WALLET]))

    def advance(self, ms: int) -> None:
        target = self.now + ms
        while True:
            due = sorted((at, key) for key, (at, _) in self.timers.items() if at <= target)
            if not due:
                break
            at, key = due[0]
            _, msg = self.timers.pop(key)
            self.now = at
            self.deliver(msg)
        self.now = target

    def calls(self, service: str) -> list[Call]:
        return [c for c in self.cmds if isinstance(c, Call) and c.service == service]

    def tracks(self, event: str | None = None) -> list[Track]:
        return [c for c in self.cmds if isinstance(c, Track) and (event is None or c.event == event)]

    def settle(self, call: Call, result: Any = None, *, ok: bool = True, error: str = "") -> Output:
        return self.deliver(CallSettled(call.purpose, ok, result if ok else None, error, dict(call.context)))

    def settle_balances(self, native_wei: int, tokens: dict[str, str] | None = None, ok: bool = True) -> Output:
        call = self.calls("balances")[-1]
        return self.settle(call, {"native": str(native_wei), "tokens": tokens or {}}, ok=ok, error="boom")

    def connect(self, address: str = ADDRESS, chain: str = "0x7a69") -> None:
        self.intent("host", "open")
        self.intent(WALLET_NODE)
        self.answer([address.lower()])
        self.answer(chain)

    def node(self, node_id: str) -> Any:
        return self.session.index.get(node_id)

    def texts(self) -> list[str]:
        return [str(n.p.get("text") or n.p.get("title") or n.p.get("name") or "") for n in self.session.tree.walk()]


class ChainDriver(Driver):
    """A Driver whose wallet is a Hardhat node's unlocked account and whose services are real."""

    def __init__(self, info: Any, address: str, **kwargs: Any) -> None:
        self.rpc_urls: dict[int, str] = dict(info.rpc_urls)
        self.address = address
        self.answered: set[str] = set()
        self.sent: list[str] = []  # hashes of the transactions the wallet sent
        self.ran = 0
        self.reject_next: tuple[int, str] | None = None
        self.hold_sends = False  # leave eth_sendTransaction unanswered (a lost request)
        tokens = tuple(Token(t["address"], t["symbol"], t["name"], int(t["decimals"]), price=1.0)
                       for t in info.chain(31337)["tokens"])
        kwargs.setdefault("now", int(time.time() * 1000))
        super().__init__(networks=local_networks(self.rpc_urls, tokens), **kwargs)
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
            self.answer([self.address.lower()], eid=frame["eid"])
        elif method == "eth_chainId":
            self.answer(self.chain_hex, eid=frame["eid"])
        elif method == "eth_sendTransaction":
            if self.hold_sends:
                return
            if self.reject_next is not None:
                error, self.reject_next = self.reject_next, None
                self.answer(error=error, eid=frame["eid"])
                return
            try:
                result = self.rpc(method, params, int(self.chain_hex, 16))
            except WalletError as failure:
                self.answer(error=(failure.code, failure.message), eid=frame["eid"])
                return
            self.sent.append(str(result))
            self.answer(result, eid=frame["eid"])
        else:
            self.answer(error=(4200, f"unsupported {method}"), eid=frame["eid"])

    async def _run(self, cmd: Call) -> CallSettled:
        async with httpx.AsyncClient() as http:
            service = default_services(http)[cmd.service]
            try:
                result = await service(**cmd.args)
            except Exception as error:  # as the runtime does: the failure goes back as a message
                return CallSettled(cmd.purpose, False, None, str(error) or type(error).__name__, dict(cmd.context))
        return CallSettled(cmd.purpose, True, result, "", dict(cmd.context))

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
            pending, self.ran = self.cmds[self.ran:], len(self.cmds)
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
def driver() -> Driver:
    return Driver()
