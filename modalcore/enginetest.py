"""The harness for testing the engine sans I/O: one `Session` on a fake clock, played by a
scripted client (README "For testers"; the JSON sequences `replay` runs call these methods).

    from modalcore import samples
    h = Harness.from_join(samples.join())       # or Harness(options={...}) / Harness(build_model(...))
    h.host("open")                              # a host API call; returns the intent_ack status
    h.press("connect/all-wallets")              # an intent by node id (intent(node, act, args))
    h.advance(500)                              # fire due timers (StartTimer commands), in order
    h.expect(view="AllWallets", text="Dev Wallet")   # AssertionError naming every failed check

    h.connect_wallet()                          # open, press the Dev Wallet, grant the account
    h.settle_call("balances", samples.balances())    # the newest pending balances call returns
    h.answer("clipboard", None)                 # the browser answers the pending effect

The harness plays the client: it numbers its frames, acknowledges every server frame it has
seen, keeps the timers the session asks for and fires them when the fake clock passes their due
time, and records every frame and command it got. Nothing here sleeps or touches the network.
Results come back in the shapes the services return (`modalcore.samples`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .chains.catalog import Network
from .core.cmds import Call, CallSettled, CancelTimer, Cmd, Effect, StartTimer, Track
from .slices.model import Model, Step, initial_model
from .core.msg import Msg
from . import samples
from .engine.record import Recorder
from .engine.session import Output, Session
from .core.shape import Slice, Table
from .engine.update import FLOWS, SLICES
from .replay.expect import expectation_failures
from .replay.screen import texts_on_screen
from .slices.accounts import AccountsState, AccountState
from .slices.options import HostOptions, parse_options
from .slices.router import Route, TxEntry
from .slices.siwx import SiwxState
from .wire.frames import (
    AnnouncedWallet,
    ClientFrame,
    EffectResult,
    Env,
    FrameError,
    Intent,
    Join,
    Resync,
    client_frame,
)
from .wire.nodes import Node
from .wire.registry import tree_errors

DEFAULT_OPTIONS: dict[str, Any] = {"networks": ["eip155:1"]}
DEV_ADDRESS = samples.DEV_ADDRESS
METAMASK = {"uuid": "mm-uuid", "name": "MetaMask", "icon": "data:image/svg+xml,mm", "rdns": "io.metamask"}


# ----- building models


def connected_accounts(
    address: str = DEV_ADDRESS, namespace: str = "eip155", chain: str = "1"
) -> AccountsState:
    """Accounts with one connected address in `namespace`."""
    state = AccountState(
        address=address, status="connected", caip_address=f"{namespace}:{chain}:{address}"
    )
    return AccountsState().with_account(namespace, state)


def build_model(
    options: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, Any] | None = None,
    wallets: Iterable[Mapping[str, Any]] = (),
    accounts: AccountsState | None = None,
    siwx: SiwxState | None = None,
    history: Iterable[str] | None = None,
    is_open: bool = False,
    project: str = "test-project",
    origin: str = "http://localhost:8000",
    known_networks: Mapping[str, Network] | None = None,
) -> Model:
    """The model a session starts with, as `join` builds it, then the overrides given.

    `history` puts views on the stack directly (views without a view module yet included);
    `is_open` starts with the modal open; `known_networks` is the operator's network catalog
    (e.g. the dev chains with their RPC URLs).
    """
    model = initial_model(
        project,
        origin,
        parse_options(dict(options if options is not None else DEFAULT_OPTIONS)),
        Env.model_validate(dict(env or {})),
        [AnnouncedWallet.model_validate(dict(wallet)) for wallet in wallets],
        known_networks=dict(known_networks) if known_networks is not None else None,
    )
    if accounts is not None:
        model = replace(model, accounts=accounts)
    if siwx is not None:
        model = replace(model, siwx=siwx)
    if history is not None:
        routes = tuple(Route(view) for view in history)
        model = replace(model, router=replace(model.router, history=routes))
    if is_open:
        model = replace(model, modal=replace(model.modal, open=True))
    return model


def with_history(model: Model, *views: str, tx_stack: tuple[TxEntry, ...] = ()) -> Model:
    """`model` with the view stack `views` (bottom first) and the transaction stack `tx_stack`."""
    routes = tuple(Route(view) for view in views)
    return replace(model, router=replace(model.router, history=routes, tx_stack=tx_stack))


# ----- running a pure slice step through a session


@dataclass(frozen=True)
class HarnessStepApplied(Msg):
    """Runs `step(model)` as if it were a message handler (not recordable: holds a function)."""

    step: Callable[[Model], Step] = field(compare=False)


def _apply_step(model: Model, msg: HarnessStepApplied, now: int) -> Step:
    return msg.step(model)


HARNESS = Slice("harness", {HarnessStepApplied: _apply_step})


def table_with(*extra: Slice) -> Table:
    """The engine's slices and flows, the harness's own message and `extra` (a test's slices):
    a new table, so nothing a test adds reaches the production one."""
    return Table.of(*SLICES, *FLOWS, HARNESS, *extra)


HARNESS_TABLE = table_with()


# ----- the harness


@dataclass
class Timer:
    due: int
    order: int
    msg: Msg


class Harness:
    """One session driven by a scripted client on a fake clock (milliseconds)."""

    def __init__(
        self,
        model: Model | None = None,
        *,
        now: int = 0,
        session_id: str = "session-1",
        token: str = "resume-token",
        recorder: Recorder | None = None,
        join: Join | None = None,
        origin: str = "http://localhost:8000",
        table: Table = HARNESS_TABLE,
        networks: Sequence[Network] = (),
        **build: Any,
    ) -> None:
        self.now = now
        if model is None:
            model = build_model(origin=origin, **build)
        self.session = Session(session_id, model, now, table)
        self.frames: list[dict[str, Any]] = []  # every server frame, in order
        self.last: list[dict[str, Any]] = []  # the frames of the latest call
        self.cmds: list[Cmd] = []  # commands other than timers, in order, until settled
        self.log: list[Cmd] = []  # every command the session returned, in order (timers too)
        self.timers: dict[str, Timer] = {}
        self.client_seq = 0 if join is None else join.s
        self.server_seq = 0  # highest server `s` seen (acknowledged on the next frame)
        self._order = 0
        self._iids = 0
        self.acks: dict[str, dict[str, Any]] = {}
        self.token = token
        self.wallets: list[AnnouncedWallet] = (
            list(join.wallets) if join is not None
            else [AnnouncedWallet.model_validate(dict(w)) for w in build.get("wallets", ())]
        )
        if recorder is not None:
            if join is None:
                raise ValueError("a recorded session starts with its join frame")
            recorder.join(now, session_id, origin, join, networks)  # `networks`: the operator's
            self.session.recorder = recorder
        self._take(self.session.welcome(token, resumed=False, last=None, now=now))

    @classmethod
    def from_join(
        cls,
        join: Mapping[str, Any],
        *,
        origin: str = "http://localhost:8000",
        **kwargs: Any,
    ) -> Harness:
        """A session started by a `join` frame (fields after the envelope), as the server does."""
        frame = Join.model_validate({"t": "join", "s": 1, "a": 0, **join})
        model = initial_model(
            frame.project, origin, parse_options(frame.opts), frame.env, frame.wallets
        )
        return cls(model, join=frame, origin=origin, **kwargs)

    # ----- what the client holds

    @property
    def model(self) -> Model:
        return self.session.model

    @property
    def tree(self) -> Node:
        return self.session.tree

    @property
    def view(self) -> str:
        return self.model.router.view

    @property
    def history(self) -> list[str]:
        return [route.view for route in self.model.router.history]

    def find(self, node_id: str) -> Node | None:
        return self.tree.find(node_id)

    def node(self, node_id: str) -> Node:
        found = self.find(node_id)
        if found is None:
            raise KeyError(f"no node {node_id!r} in the tree; ids: {sorted(self.ids())}")
        return found

    def ids(self) -> set[str]:
        return {n.id for n in self.tree.walk()}

    def texts(self) -> list[str]:
        """Every string a visitor could read, in document order."""
        keys = ("text", "title", "subtitle", "name", "message", "label")
        return [n.p[k] for n in self.tree.walk() for k in keys if isinstance(n.p.get(k), str) and n.p[k]]

    def find_text(self, text: str, *, exact: bool = False) -> list[Node]:
        keys = ("text", "title", "subtitle", "name", "message", "label")
        found = []
        for n in self.tree.walk():
            for key in keys:
                value = n.p.get(key)
                if isinstance(value, str) and (value == text if exact else text in value):
                    found.append(n)
                    break
        return found

    def of_type(self, t: str) -> list[Node]:
        return [n for n in self.tree.walk() if n.t == t]

    def frames_of(self, t: str, frames: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        return [f for f in (self.frames if frames is None else frames) if f["t"] == t]

    def latest(self, t: str, **match: Any) -> dict[str, Any]:
        """The newest frame of type `t` (whose fields equal `match`)."""
        for frame in reversed(self.frames):
            if frame["t"] == t and all(frame.get(k) == v for k, v in match.items()):
                found: dict[str, Any] = frame
                return found
        raise KeyError(f"no {t} frame matching {match}")

    def host_state(self, kind: str = "state") -> dict[str, Any]:
        data: dict[str, Any] = self.latest("host_event", kind=kind)["data"]
        return data

    def theme(self) -> dict[str, Any]:
        return self.latest("theme")

    def effects(self, method: str | None = None) -> list[dict[str, Any]]:
        """Every effect frame sent (asking `method`, an EIP-1193 method, when given)."""
        return [f for f in self.frames_of("effect") if method is None or f["req"].get("method") == method]

    def last_effect(self) -> dict[str, Any]:
        effects = self.effects()
        if not effects:
            raise AssertionError(f"no effect was sent; view {self.view}")
        return effects[-1]

    def pending_effects(self) -> list[dict[str, Any]]:
        return [f for f in self.effects() if f["eid"] in self.session.effects]

    # ----- client frames

    def _next_seq(self) -> int:
        self.client_seq += 1
        return self.client_seq

    def send(self, frame: ClientFrame) -> list[dict[str, Any]]:
        return self._take(self.session.receive(frame, self.now))

    def intent(
        self,
        node: str,
        act: str = "press",
        args: Mapping[str, Any] | None = None,
        *,
        iid: str | None = None,
    ) -> str:
        """Send an intent; returns the status of its `intent_ack`."""
        if iid is None:
            self._iids += 1
            iid = f"i{self._iids}"
        frame = Intent(
            t="intent", s=self._next_seq(), a=self.server_seq, iid=iid, node=node, act=act,
            args=dict(args or {}),
        )
        frames = self.send(frame)
        ack = next(f for f in frames if f["t"] == "intent_ack" and f["iid"] == iid)
        self.acks[iid] = ack
        status: str = ack["status"]
        return status

    def press(self, node: str, *, iid: str | None = None) -> str:
        status = self.intent(node, "press", iid=iid)
        if status != "ok":
            raise AssertionError(f"press on {node!r} was {status}: {self.acks}")
        return status

    def host(self, act: str, **args: Any) -> str:
        return self.intent("host", act, args)

    def effect_result(
        self,
        eid: str,
        *,
        ok: bool = True,
        result: Any = None,
        code: int | None = None,
        message: str = "",
    ) -> list[dict[str, Any]]:
        fields: dict[str, Any] = {"t": "effect_result", "s": self._next_seq(), "a": self.server_seq,
                                  "eid": eid, "ok": ok}
        if ok:
            fields["result"] = result
        else:
            fields["error"] = {"code": -32603 if code is None else code, "message": message}
        return self.send(EffectResult.model_validate(fields))

    def wallet_event(self, connector: str, event: str, data: Any = None) -> list[dict[str, Any]]:
        """A wallet event through the socket edge, as the endpoint parses it: data of the wrong
        shape comes back as the `error` frame the socket sends."""
        try:
            frame = client_frame({
                "t": "wallet_event", "s": self._next_seq(), "a": self.server_seq,
                "connector": connector, "event": event, "data": data,
            })
        except FrameError as error:
            return [{"t": "error", "s": 0, "a": self.session.in_seq, "code": error.code, "message": error.message}]
        return self.send(frame)

    def resync(self, version: int = 0) -> list[dict[str, Any]]:
        return self.send(Resync(t="resync", s=self._next_seq(), a=self.server_seq, v=version))

    def rejoin(
        self, *, last: int | None, wallets: Iterable[Mapping[str, Any]] | None = None,
        options: HostOptions | None = None,
    ) -> list[dict[str, Any]]:
        """A new socket for this session: `last` when the page kept its tree, None after a
        reload. The page announces `wallets` again (by default the ones it joined with), and
        after a reload may bring new `options`."""
        announced = (
            self.wallets if wallets is None
            else [AnnouncedWallet.model_validate(dict(w)) for w in wallets]
        )
        out = self.session.welcome(self.token, resumed=True, last=last, now=self.now, wallets=announced,
                                   options=options)
        return self._take(out)

    # ----- messages and time

    def deliver(self, msg: Msg) -> list[dict[str, Any]]:
        return self._take(self.session.deliver(msg, self.now))

    def apply(self, step: Callable[[Model], Step]) -> list[dict[str, Any]]:
        """Run a pure slice function `model -> (model, cmds)` through the session."""
        return self.deliver(HarnessStepApplied(step))

    def advance(self, ms: int) -> list[dict[str, Any]]:
        """Move the clock on by `ms`, firing every timer that falls due, earliest first."""
        target = self.now + ms
        frames: list[dict[str, Any]] = []
        while True:
            due = [(t.due, t.order, key) for key, t in self.timers.items() if t.due <= target]
            if not due:
                break
            _, _, key = min(due)
            timer = self.timers.pop(key)
            self.now = max(self.now, timer.due)
            frames.extend(self.deliver(timer.msg))
        self.now = target
        self.last = frames
        return frames

    def timer_due(self, key: str) -> int | None:
        timer = self.timers.get(key)
        return None if timer is None else timer.due

    # ----- playing the wallet and the services

    def pending_effect(self, method: str) -> dict[str, Any]:
        """The oldest pending effect asking `method` (an EIP-1193 method such as
        "eth_requestAccounts", or an effect kind such as "clipboard")."""
        for effect in self.pending_effects():
            if effect["req"].get("method") == method or effect["kind"] == method:
                return effect
        asked = [e["req"].get("method") or e["kind"] for e in self.pending_effects()]
        raise AssertionError(f"no pending {method} effect in view {self.view}; pending: {asked}")

    def answer(
        self,
        method: str,
        result: Any = None,
        *,
        code: int | None = None,
        message: str = "",
        after_ms: int = 0,
    ) -> list[dict[str, Any]]:
        """The browser answers the pending `method` effect `after_ms` later: with `result`, or
        with the error `code` (e.g. 4001, the user rejected) and `message`."""
        effect = self.pending_effect(method)
        if after_ms:
            self.advance(after_ms)
        if code is None:
            return self.effect_result(effect["eid"], result=result)
        return self.effect_result(effect["eid"], ok=False, code=code, message=message)

    def answer_last(
        self, result: Any = None, *, code: int | None = None, message: str = "", eid: str | None = None,
    ) -> list[dict[str, Any]]:
        """The browser answers the newest effect sent (or effect `eid`): with `result`, or with
        the error `code` and `message`."""
        target = eid if eid is not None else self.last_effect()["eid"]
        if code is None:
            return self.effect_result(target, result=result)
        return self.effect_result(target, ok=False, code=code, message=message)

    def calls(self, service: str | None = None) -> list[Call]:
        """Every service call the session asked for, settled or not, oldest first."""
        return [c for c in self.log if isinstance(c, Call) and (service is None or c.service == service)]

    def tracks(self, event: str | None = None) -> list[Track]:
        """Every analytics event the session tracked (named `event`, when given)."""
        return [c for c in self.log if isinstance(c, Track) and (event is None or c.event == event)]

    def settle(
        self, call: Call, result: Any = None, *, ok: bool = True, error: str = "",
    ) -> list[dict[str, Any]]:
        """`call` (pending or not: a duplicate answer) comes back, as the runtime delivers it."""
        if call in self.cmds:
            self.cmds.remove(call)
        return self.deliver(CallSettled(purpose=call.purpose, ok=ok, result=result if ok else None,
                                        error=error, context=dict(call.context)))

    def pending_calls(self, service: str | None = None) -> list[Call]:
        """Service calls the session asked for and nobody settled yet, oldest first."""
        return [c for c in self.cmds if isinstance(c, Call) and (service is None or c.service == service)]

    def settle_call(
        self,
        service: str,
        result: Any = None,
        *,
        ok: bool = True,
        error: str = "",
        after_ms: int = 0,
    ) -> list[dict[str, Any]]:
        """The newest pending call to `service` comes back `after_ms` later, as the runtime
        delivers it: `result` in the service's shape (see `modalcore.samples`), or `ok=False`
        with an `error` text."""
        calls = self.pending_calls(service)
        if not calls:
            asked = sorted({c.service for c in self.pending_calls()})
            raise AssertionError(f"no {service} call was asked for; pending calls: {asked}")
        call = calls[-1]
        self.cmds.remove(call)
        if after_ms:
            self.advance(after_ms)
        return self.settle(call, result, ok=ok, error=error)

    def connect_wallet(
        self,
        wallet: str = "Dev Wallet",
        *,
        address: str = DEV_ADDRESS,
        chain_id: str = "0x7a69",
        after_ms: int = 0,
    ) -> None:
        """Open the modal, press the announced `wallet` and let it grant `address` on
        `chain_id` (hex, as eth_chainId answers). Service calls it causes stay pending."""
        self.host("open")
        pressable = [n for n in self.find_text(wallet, exact=True) if n.t == "wallet-item"]
        if not pressable:
            raise AssertionError(f"no wallet {wallet!r} in view {self.view}: {self.texts()}")
        self.press(pressable[0].id)
        self.answer("eth_requestAccounts", [address.lower()], after_ms=after_ms)
        self.answer("eth_chainId", chain_id, after_ms=after_ms)

    # ----- checking what the visitor sees

    def screen_texts(self) -> list[str]:
        """The texts on screen: none while the modal is closed, none in hidden parts."""
        return texts_on_screen(self.tree.to_wire())

    def expect(self, **checks: Any) -> None:
        """Assert what the session shows; every failed check is named in one AssertionError.

        view="Account"  open=True  text="Address copied" (or a list; substrings of texts on
        screen)  no_text=...  node="account/copy" (or a list)  no_node=...
        props={"snackbar": {"variant": "error"}}  ack="ok" (the latest intent's status)
        effect="eth_sendTransaction" (pending)  call="balances" (pending)
        host={"account": {"isConnected": True}} (latest host events, the keys given)
        """
        failures = expectation_failures(self, checks)
        if failures:
            raise AssertionError("; ".join(failures))

    # ----- bookkeeping

    def _take(self, out: Output) -> list[dict[str, Any]]:
        if any(frame["t"] in ("snapshot", "patch") for frame in out.frames):
            check_tree(self.session.tree)
        for frame in out.frames:
            self.server_seq = max(self.server_seq, frame["s"])
        self.frames.extend(out.frames)
        self.log.extend(out.cmds)
        for cmd in out.cmds:
            if isinstance(cmd, StartTimer):
                self._order += 1
                self.timers[cmd.key] = Timer(self.now + cmd.delay_ms, self._order, cmd.msg)
            elif isinstance(cmd, CancelTimer):
                self.timers.pop(cmd.key, None)
            else:
                self.cmds.append(cmd)
        self.last = list(out.frames)
        return self.last


def check_tree(tree: Node) -> None:
    """Every tree a test sees validates against the node registry (wire/registry.py)."""
    errors = tree_errors(tree.to_wire())
    if errors:
        raise AssertionError("the tree breaks the node contract:\n" + "\n".join(errors[:20]))


def effect_cmds(cmds: Iterable[Cmd]) -> list[Effect]:
    return [cmd for cmd in cmds if isinstance(cmd, Effect)]
