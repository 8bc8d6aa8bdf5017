"""The harness: a `SessionClient` that reads what the visitor sees, plays the wallet and the
services, and checks the screen (`expect`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.cmds import (RUNTIME_EFFECT_KINDS, Call, CallSettled, Cmd, Effect, EffectSettled, FailureKind, ServiceRef,
                         Track)
from ..replay.expect import expectation_failures
from .models import DEV_ADDRESS
from .screen import ScreenClient


class Harness(ScreenClient):
    """One session driven by a scripted client on a fake clock (milliseconds): what it shows
    (`ScreenClient`), the wallet and the services played, and checks (`expect`)."""

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
        result: object = None,
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
        self, result: object = None, *, code: int | None = None, message: str = "", eid: str | None = None,
    ) -> list[dict[str, Any]]:
        """The browser answers the newest effect sent (or effect `eid`): with `result`, or with
        the error `code` and `message`."""
        target = eid if eid is not None else self.last_effect()["eid"]
        if code is None:
            return self.effect_result(target, result=result)
        return self.effect_result(target, ok=False, code=code, message=message)

    def pending_relay(self, method: str) -> Effect:
        """The oldest pending effect the runtime runs on the WalletConnect session (`wc_pair`,
        `wc_approval`, or an EIP-1193 method such as `personal_sign`)."""
        for cmd in self.cmds:
            if isinstance(cmd, Effect) and cmd.kind in RUNTIME_EFFECT_KINDS and cmd.req.get("method") == method \
                    and cmd.eid in self.session.effects:
                return cmd
        asked = [c.req.get("method") for c in self.cmds if isinstance(c, Effect) and c.eid in self.session.effects]
        raise AssertionError(f"no pending WalletConnect {method} in view {self.view}; pending: {asked}")

    def relay(self, method: str, result: object = None, *, code: int | None = None, message: str = "",
              after_ms: int = 0) -> list[dict[str, Any]]:
        """The runtime answers the pending WalletConnect `method` effect `after_ms` later, as
        runtime/walletconnect.py does: `result`, or the wallet's error `code` and `message`."""
        effect = self.pending_relay(method)
        self.cmds.remove(effect)
        if after_ms:
            self.advance(after_ms)
        ok = code is None
        return self.deliver(EffectSettled(effect.eid, effect.to, ok, result if ok else None,
                                          0 if ok else int(code or 0), "" if ok else message))

    def calls(self, service: Service | None = None) -> list[Call[Any]]:
        """Every service call the session asked for (to `service`, a handle or its name), settled
        or not, oldest first."""
        return [c for c in self.log if isinstance(c, Call) and _to(c, service)]

    def tracks(self, event: str | None = None) -> list[Track]:
        """Every analytics event the session tracked (named `event`, when given)."""
        return [c for c in self.log if isinstance(c, Track) and (event is None or c.event == event)]

    def settle(
        self, call: Call[Any], result: object = None, *, ok: bool = True, error: str = "",
        failure: FailureKind | None = None,
    ) -> list[dict[str, Any]]:
        """`call` (pending or not: a duplicate answer) comes back, as the runtime delivers it
        (failed: `error` of kind `failure`, "unknown" when not given)."""
        if call in self.cmds:
            self.cmds.remove(call)
        return self.deliver(CallSettled(call.to, ok=ok, result=result if ok else None,
                                        error=error, context=dict(call.context), failure=failure))

    def pending_calls(self, service: Service | None = None) -> list[Call[Any]]:
        """Service calls the session asked for (to `service`, a handle or its name) and nobody
        settled yet, oldest first."""
        return [c for c in self.cmds if isinstance(c, Call) and _to(c, service)]

    def settle_call(
        self,
        service: Service,
        result: object = None,
        *,
        ok: bool = True,
        error: str = "",
        failure: FailureKind | None = None,
        after_ms: int = 0,
    ) -> list[dict[str, Any]]:
        """The newest pending call to `service` comes back `after_ms` later, as the runtime
        delivers it: `result` in the service's shape (see `modalcore.samples`), or `ok=False`
        with an `error` text of kind `failure`."""
        calls = self.pending_calls(service)
        if not calls:
            asked = sorted({c.service.name for c in self.pending_calls()})
            raise AssertionError(f"no {service} call was asked for; pending calls: {asked}")
        call = calls[-1]
        self.cmds.remove(call)
        if after_ms:
            self.advance(after_ms)
        return self.settle(call, result, ok=ok, error=error, failure=failure)

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

    def expect(self, **checks: object) -> None:
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


# A service as a test names it: its handle, or the handle's name (a test's shorthand, read here only)
Service = ServiceRef[Any, Any] | str


def _to(call: Call[Any], service: Service | None) -> bool:
    return service is None or call.service == service or call.service.name == service


def effect_cmds(cmds: Iterable[Cmd]) -> list[Effect]:
    return [cmd for cmd in cmds if isinstance(cmd, Effect)]
