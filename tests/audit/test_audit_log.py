"""The audit log (issue 20, part 2): per session, append-only, hash-chained; derived at the
runtime edge from what each update produced; `audit verify` finds an edited entry."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from modalcore.core.cmds import EffectReply, EffectTo
from modalcore.__main__ import main
from modalcore.ledger.chain import GENESIS, digest, verify_chain
from modalcore.ops.audit import verify_store
from modalcore.audit.observer import AuditObserver
from modalcore.audit.signer import HeadSigner
from modalcore.slices.model import initial_model
from modalcore.engine.session import Session
from modalcore.runtime.analytics import MemorySink
from modalcore.runtime.clock import FakeClock
from modalcore.ports.observe import Step
from modalcore.runtime.runner import RunnerDeps, SessionRunner
from modalcore.runtime.services import default_services
from modalcore.slices.options import parse_options
from modalcore.store.base import AuditConflict, SessionStore
from modalcore.store.memory import MemoryStore
from modalcore.store.sqlite import SqliteStore
from modalcore_testing import FakeOutlet
from modalcore.wire.frames import EffectError, EffectResult, Env, Intent, WalletEvent
from modalcore.wire.serverframes import EffectRequest

from ..devwallet import ADDRESS, DEV_WALLET, WALLET_NODE
from ..siwx_flow.test_siwx_flow import SiwxWorld


def kinds(entries: list[Any]) -> list[str]:
    return [json.loads(entry.body)["kind"] for entry in entries]


def datas(entries: list[Any]) -> list[dict[str, Any]]:
    return [json.loads(entry.body)["data"] for entry in entries]


class Browser:
    """Frames to a live SessionRunner as the renderer would send them."""

    def __init__(self, runner: SessionRunner, outlet: FakeOutlet) -> None:
        self.runner, self.outlet, self.seq = runner, outlet, 0

    async def _put(self, frame: Any) -> None:
        self.runner.put_frame(frame, self.outlet)
        await self.runner.settled()

    def _next(self) -> tuple[int, int]:
        self.seq += 1
        return self.seq, self.runner.session.out_seq

    async def intent(self, node: str, act: str = "press") -> None:
        s, a = self._next()
        await self._put(Intent(t="intent", s=s, a=a, iid=f"i{s}", node=node, act=act, args={}))

    async def answer(self, result: Any = None, error: tuple[int, str] | None = None) -> None:
        eid = [f for f in self.outlet.frames if f["t"] == "effect"][-1]["eid"]
        s, a = self._next()
        await self._put(EffectResult(
            t="effect_result", s=s, a=a, eid=eid, ok=error is None, result=result,
            error=EffectError(code=error[0], message=error[1]) if error else None))

    async def wallet_event(self, event: str, data: Any) -> None:
        s, a = self._next()
        await self._put(WalletEvent(t="wallet_event", s=s, a=a, connector="uuid-1",
                                    event=event, data=data))  # type: ignore[arg-type]


async def drive_connect_disconnect(store: SessionStore, signer: HeadSigner | None = None,
                                   session_id: str = "s-audit") -> None:
    """Connect the Dev Wallet, switch chains, disconnect: three entries (their heads signed and
    stored by `signer` before this returns, when given)."""
    clock = FakeClock()
    options = parse_options({"networks": ["eip155:31337", "eip155:31338"]})
    model = initial_model("demo", "http://localhost:1", options, Env(), [DEV_WALLET])
    session = Session(session_id, model, clock.now_ms())
    deps = RunnerDeps(clock=clock, services=default_services(), analytics=MemorySink(),
                      store=store, observers=(AuditObserver(store, signer),))
    runner = SessionRunner(session, deps)
    runner.start()
    outlet = FakeOutlet()
    await runner.attach(outlet, lambda generation: f"token{generation}", resumed=False, last=None)
    browser = Browser(runner, outlet)
    await browser.intent("host", "open")
    await browser.intent(WALLET_NODE)
    await browser.answer([ADDRESS.lower()])
    await browser.answer("0x7a69")
    await browser.wallet_event("chainChanged", "0x7a6a")
    await browser.wallet_event("disconnect", None)
    await runner.stop()
    if signer is not None:
        await signer.flush()


def test_rule_connects_chain_switches_and_disconnects_are_audited_through_the_runner() -> None:
    store = MemoryStore()
    asyncio.run(drive_connect_disconnect(store))
    entries = asyncio.run(store.audit.entries("s-audit"))
    assert kinds(entries) == ["connect", "chain_switch", "disconnect"]
    connect, switch, disconnect = datas(entries)
    assert connect == {"connector": "dev.modalcore.devwallet", "address": ADDRESS, "chain": "eip155:31337",
                       "origin": "http://localhost:1"}
    assert switch["chain"] == "eip155:31338" and switch["from"] == "eip155:31337"
    assert disconnect["address"] == ADDRESS and disconnect["chain"] == "eip155:31338"


def test_rule_each_entry_holds_the_hash_of_the_previous_entrys_bytes() -> None:
    store = MemoryStore()
    asyncio.run(drive_connect_disconnect(store))
    entries = asyncio.run(store.audit.entries("s-audit"))
    assert json.loads(entries[0].body)["prev"] == GENESIS
    for before, after in zip(entries, entries[1:]):
        assert json.loads(after.body)["prev"] == digest(before.body) == before.hash
    assert verify_chain(entries) == (3, None)


class Tap:
    """Feeds a sans-IO session's steps to an observer as the runner does."""

    def __init__(self, session: Session, observer: AuditObserver) -> None:
        receive, deliver = session.receive, session.deliver

        def wrap(inner: Any) -> Any:
            def call(cause: Any, now: int) -> Any:
                before, effects = session.model, dict(session.effects)
                out = inner(cause, now)
                step = Step(session.id, now, before, session.model, cause, out.frames, out.cmds,
                            effects)
                asyncio.run(observer.observe(step))
                return out
            return call

        session.receive = wrap(receive)  # type: ignore[method-assign]
        session.deliver = wrap(deliver)  # type: ignore[method-assign]


def test_rule_sign_in_is_audited_with_the_signature_request_its_outcome_and_hashes() -> None:
    store = MemoryStore()
    world = SiwxWorld()
    Tap(world.driver.session, AuditObserver(store))
    world.connect()
    world.sign_in()
    entries = asyncio.run(store.audit.entries("s1"))
    assert kinds(entries) == ["connect", "signature_request", "signature_result", "sign_in"]
    request, result, sign_in = datas(entries)[1:]
    assert request["method"] == "personal_sign" and len(request["request_hash"]) == 64
    # the connector as `connect` names it (its rdns), not this page load's EIP-6963 uuid
    assert request["connector"] == datas(entries)[0]["connector"] == "dev.modalcore.devwallet"
    assert result["outcome"] == "approved" and result["eid"] == request["eid"]
    assert len(result["result_hash"]) == 64
    assert sign_in["address"].endswith(ADDRESS)


def test_rule_a_declined_signature_is_audited_as_rejected_with_its_code() -> None:
    store = MemoryStore()
    world = SiwxWorld()
    Tap(world.driver.session, AuditObserver(store))
    world.connect()
    world.driver.intent("siwx/sign")
    world.run_calls()
    world.driver.answer_last(code=4001, message="User rejected the request.")
    entries = asyncio.run(store.audit.entries("s1"))
    assert kinds(entries)[:3] == ["connect", "signature_request", "signature_result"]
    assert datas(entries)[2]["outcome"] == "rejected"
    assert datas(entries)[2]["error_code"] == 4001


def test_rule_the_sqlite_audit_table_is_append_only() -> None:
    store = SqliteStore(":memory:")
    asyncio.run(drive_connect_disconnect(store))
    entries = asyncio.run(store.audit.entries("s-audit"))
    with pytest.raises(AuditConflict):
        asyncio.run(store.audit.append(entries[0]))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._db.execute("UPDATE audit SET body = x'00' WHERE seq = 1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._db.execute("DELETE FROM audit")
    # an expired session leaves the store; its audit log stays
    asyncio.run(store.expire(10**15))
    assert len(asyncio.run(store.audit.entries("s-audit"))) == 3


def test_rule_verify_finds_an_edited_entry_and_names_the_first_broken_link(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sessions.db"

    async def fill() -> None:
        store = SqliteStore(path)
        await drive_connect_disconnect(store)
        await store.close()

    asyncio.run(fill())
    assert main(["audit", "verify", "--store", str(path)]) == 0
    assert "ok: 3 entries in 1 session" in capsys.readouterr().out

    db = sqlite3.connect(path)  # someone with the file: triggers dropped, one entry edited
    db.execute("DROP TRIGGER audit_no_update")
    body = db.execute("SELECT body FROM audit WHERE seq = 2").fetchone()[0]
    edited = bytes(body).replace(b"eip155:31338", b"eip155:00001")
    db.execute("UPDATE audit SET body = ? WHERE seq = 2", (edited,))
    db.commit()
    db.close()
    assert main(["audit", "verify", "--store", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("BROKEN session s-audit entry 2:") and "edited" in out


def test_rule_an_edit_that_rehashes_its_entry_is_named_by_the_next_link(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"

    async def fill_and_verify() -> Any:
        store = SqliteStore(path)
        await drive_connect_disconnect(store)
        store._db.execute("DROP TRIGGER audit_no_update")
        body = (await store.audit.entries("s-audit"))[0].body.replace(b"localhost:1", b"evil.example")
        store._db.execute("UPDATE audit SET body = ?, hash = ? WHERE seq = 1", (body, digest(body)))
        verdict = await verify_store(store)
        await store.close()
        return verdict

    verdict = asyncio.run(fill_and_verify())
    assert verdict.broken is not None
    assert (verdict.broken.seq, verdict.broken.reason) == (  # the entry written again is named
        1, "it was written again: its hash is not the one entry 2 holds (or entry 2's link to it "
           "was changed)")


def test_rule_verify_on_a_missing_store_is_a_clear_error(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "verify", "--store", str(tmp_path / "none.db")]) == 2
    assert "no store at" in capsys.readouterr().err


def test_rule_a_transaction_request_and_its_outcome_carry_the_transaction_hash() -> None:
    from modalcore.audit.derive import derive
    from modalcore.slices.model import Model

    model = Model(session_id="s")
    tx = {"from": ADDRESS, "to": ADDRESS, "value": "0x1"}
    asked = Step("s", 1, model, model, None, [EffectRequest(
        4, 1, "e7", "eip1193", 1000, {"connector": "uuid-1", "method": "eth_sendTransaction", "params": [tx]})], [],
        {})
    records, pending = derive(asked, {})
    assert [(r.kind, r.data["method"]) for r in records] == [
        ("transaction_request", "eth_sendTransaction")]
    answer = EffectResult(t="effect_result", s=3, a=4, eid="e7", ok=True, result="0x" + "ab" * 32)
    settled = Step("s", 2, model, model, answer, [], [], {"e7": EffectTo(EffectReply, "send")})
    records, pending = derive(settled, pending)
    assert [r.kind for r in records] == ["transaction_result"]
    assert records[0].data == {"eid": "e7", "method": "eth_sendTransaction",
                               "outcome": "approved", "tx_hash": "0x" + "ab" * 32}
    assert pending == {}
