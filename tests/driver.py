"""The sans-IO test harness shared by the engine's flow tests (connect, send, sign-in, ...)."""

from __future__ import annotations

from typing import Any

from modalcore.chains.catalog import Network
from modalcore.core.cmds import Call, CallSettled, Cmd, StartTimer, Track
from modalcore.slices.model import initial_model
from modalcore.core.msg import Msg
from modalcore.engine.session import Output, Session
from modalcore.enginetest import check_tree
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, EffectError, EffectResult, Env, Intent, WalletEvent

ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
DEV_WALLET = AnnouncedWallet(uuid="uuid-1", name="Dev Wallet", icon="data:x", rdns="dev.modalcore.devwallet")
WALLET_NODE = "connect/wallet/dev.modalcore.devwallet"


class Driver:
    """A Session driven like a browser would: intents, effect results, wallet events, and
    messages on a fake clock (StartTimer messages fire in due order on `advance`)."""

    def __init__(self, options: dict[str, Any] | None = None, wallets: list[AnnouncedWallet] | None = None,
                 env: Env | None = None, networks: dict[str, Network] | None = None, now: int = 0) -> None:
        opts = {"networks": ["eip155:31337", "eip155:31338"], **(options or {})}
        model = initial_model("demo", "http://localhost:1", parse_options(opts), env or Env(),
                              wallets if wallets is not None else [DEV_WALLET], known_networks=networks)
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
        if any(frame["t"] in ("snapshot", "patch") for frame in out.frames):
            check_tree(self.session.tree)
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

    def tree(self) -> Any:
        return self.session.tree


def chain_networks(rpc_urls: dict[int, str], deployment: dict[str, Any]) -> dict[str, Network]:
    """The engine's networks for running dev chains, as an operator config would give them."""
    from modalcore.server.config import dev_networks, parse_config

    return parse_config({"networks": dev_networks(rpc_urls, deployment)}).known_networks()
