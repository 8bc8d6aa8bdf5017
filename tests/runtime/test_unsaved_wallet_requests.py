"""Issue 27: a request that asks a wallet to sign or send leaves only once the saved session knows
it is pending. While the store is down (the save does not land) it is not sent at all: not as
an `effect` frame (nor kept in the ring for a reconnect to replay), not over WalletConnect, not
to the embedded wallet's signer; the asking slice gets the failure 'Request not sent: ...'
instead. Requests that only read or connect still go, and once saves land again so do sends.

(No `from __future__ import annotations`: the recorder's pydantic must see these messages'
real annotations.)
"""

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from modalcore.core.cmds import Call, Effect, EffectReply, Reply, ServiceRef
from modalcore.core.msg import Msg
from modalcore.core.shape import On, Slice, Table
from modalcore.engine.update import FLOWS, SLICES
from modalcore.rules.wallet_requests import NOT_SAVED
from modalcore.services.domain.handles import EMBEDDED_SIGN
from modalcore.core.services import Service, ServiceContext
from modalcore.slices import snack
from modalcore.slices.model import Model, Step
from modalcore.store.sqlite import SqliteStore
from modalcore_testing import DownStore, RunnerRig, runner_rig
from modalcore.wire.codec import decode


@dataclass(frozen=True)
class UwAskedWallet(Msg):
    eid: str
    kind: str
    method: str


@dataclass(frozen=True)
class UwWalletAnswered(EffectReply):
    pass


@dataclass(frozen=True)
class UwAskedSigner(Msg):
    key: str


@dataclass(frozen=True)
class UwSignerAnswered(Reply):
    result: dict[str, object] | None = None


def _ask_wallet(model: Model, msg: UwAskedWallet, now: int) -> Step:
    req: dict[str, Any] = {"connector": "uuid-1", "method": msg.method, "params": []}
    return model, [Effect(msg.eid, msg.kind, req, UwWalletAnswered, "k", 60_000)]


def _wallet_answered(model: Model, msg: UwWalletAnswered, now: int) -> Step:
    return snack.show_error(model, msg.error_message) if not msg.ok else snack.show(model, "signed")


def _ask_signer(model: Model, msg: UwAskedSigner, now: int) -> Step:
    return model, [STAND_IN.call(SignArgs(what="tx"), UwSignerAnswered, msg.key)]


def _signer_answered(model: Model, msg: UwSignerAnswered, now: int) -> Step:
    return snack.show_error(model, msg.error) if not msg.ok else snack.show(model, "signed")


TABLE = Table.of(*SLICES, *FLOWS, Slice("unsaved-wallet-requests", (
    On(UwAskedWallet, _ask_wallet),
    On(UwWalletAnswered, _wallet_answered),
    On(UwAskedSigner, _ask_signer),
    On(UwSignerAnswered, _signer_answered),
)))


class SignArgs(BaseModel):
    what: str


STAND_IN: ServiceRef[SignArgs, dict[str, object]] = ServiceRef(EMBEDDED_SIGN.name, SignArgs, dict)  # a stand-in signer under the embedded wallet's name


class FakeWalletConnect:
    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    async def run(self, session_id: str, req: dict[str, Any]) -> tuple[bool, Any, int, str]:
        self.asked.append(req)
        return True, "0xsigned", 0, ""

    async def forget(self, session_id: str) -> None:
        return None


@pytest.fixture
async def rig() -> AsyncIterator[tuple[RunnerRig, DownStore, list[str], FakeWalletConnect]]:
    async with runner_rig(table=TABLE) as started:
        store = DownStore()
        started.runner.deps.store = store
        started.session.acted = True  # a used session (only those are saved)
        signed: list[str] = []

        async def sign(ctx: ServiceContext | None, args: SignArgs) -> dict[str, object]:
            signed.append(args.what)
            return {"ok": True}

        # a stand-in signer under the embedded wallet's handle (its name), with its own arguments
        started.services.register(STAND_IN, Service(SignArgs, sign))
        walletconnect = FakeWalletConnect()
        started.runner.deps.walletconnect = walletconnect
        started.outlet.take()
        yield started, store, signed, walletconnect


def _snack(rig: RunnerRig) -> str:
    return str(rig.session.model.snack.message)


async def _deliver(rig: RunnerRig, msg: Msg) -> None:
    rig.runner.deliver(msg)
    await rig.runner.settled()
    await asyncio.sleep(0.01)  # a runtime effect's task runs (it is not a counted call)
    await rig.runner.settled()


async def test_rule_a_send_request_is_not_sent_while_its_state_is_unsaved(
        rig: tuple[RunnerRig, DownStore, list[str], FakeWalletConnect]) -> None:
    started, store, _, _ = rig
    store.down = True
    await _deliver(started, UwAskedWallet("e1", "eip1193", "eth_sendTransaction"))
    frames = started.outlet.take()
    assert [f for f in frames if f["t"] == "effect"] == []
    cancel = [f for f in frames if f["t"] == "effect_cancel"]
    assert [f["eid"] for f in cancel] == ["e1"]  # the number it had, so the client's count goes on
    ring = [decode(data) for _, data in started.session.ring]
    assert [f for f in ring if f["t"] == "effect"] == []  # a reconnect's replay cannot ask either
    assert _snack(started) == NOT_SAVED
    assert started.session.effects == {}  # answered (as not sent): no time-out left waiting
    assert [t.key for t in started.runner.commands.pending_timers() if t.key.startswith("effect:")] == []
    # the store is back: the same request goes to the wallet
    store.down = False
    await _deliver(started, UwAskedWallet("e2", "eip1193", "eth_sendTransaction"))
    sent = [f for f in started.outlet.take() if f["t"] == "effect"]
    assert [(f["eid"], f["req"]["method"]) for f in sent] == [("e2", "eth_sendTransaction")]


async def test_rule_signing_requests_of_every_kind_are_held_but_reads_still_go(
        rig: tuple[RunnerRig, DownStore, list[str], FakeWalletConnect]) -> None:
    started, store, _, _ = rig
    store.down = True
    await _deliver(started, UwAskedWallet("p1", "eip1193", "personal_sign"))
    await _deliver(started, UwAskedWallet("s1", "solana", "solana:signTransaction"))
    await _deliver(started, UwAskedWallet("c1", "eip1193", "eth_requestAccounts"))
    await _deliver(started, UwAskedWallet("x1", "clipboard", "copy"))
    sent = [f["eid"] for f in started.outlet.take() if f["t"] == "effect"]
    assert sent == ["c1", "x1"]  # connecting and copying are harmless twice: they go


async def test_rule_walletconnect_and_the_embedded_signer_are_not_asked_while_unsaved(
        rig: tuple[RunnerRig, DownStore, list[str], FakeWalletConnect]) -> None:
    started, store, signed, walletconnect = rig
    store.down = True
    await _deliver(started, UwAskedWallet("w1", "walletconnect", "eth_sendTransaction"))
    assert walletconnect.asked == [] and _snack(started) == NOT_SAVED
    await _deliver(started, UwAskedSigner("tx-1"))
    assert signed == [] and _snack(started) == NOT_SAVED
    store.down = False
    await _deliver(started, UwAskedWallet("w2", "walletconnect", "eth_sendTransaction"))
    await _deliver(started, UwAskedSigner("tx-2"))
    assert [req["method"] for req in walletconnect.asked] == ["eth_sendTransaction"]
    assert signed == ["tx"] and _snack(started) == "signed"


async def test_rule_a_send_request_is_not_sent_while_the_sqlite_file_is_locked(
        rig: tuple[RunnerRig, DownStore, list[str], FakeWalletConnect], tmp_path: Path) -> None:
    started, _, _, _ = rig
    path = tmp_path / "sessions.db"
    store = SqliteStore(path, write_behind_ms=5)
    store._db.execute("PRAGMA busy_timeout = 20")  # fail fast on the lock (the default waits 5 s)
    started.runner.deps.store = store
    other = sqlite3.connect(str(path), isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        await _deliver(started, UwAskedWallet("e1", "eip1193", "eth_sendTransaction"))
        assert [f for f in started.outlet.take() if f["t"] == "effect"] == []
        assert _snack(started) == NOT_SAVED
    finally:
        other.execute("COMMIT")
        other.close()
    await _deliver(started, UwAskedWallet("e2", "eip1193", "eth_sendTransaction"))
    assert [f["eid"] for f in started.outlet.take() if f["t"] == "effect"] == ["e2"]
    await store.close()
