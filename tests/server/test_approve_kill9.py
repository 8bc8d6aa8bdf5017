"""Issue 38 item 6 (b): `kill -9` of `serve` right after Approve returned 200, then a restart.

The report: nothing was sent, but the session stayed on ApproveTransaction, `host close` did
nothing, the frame answered 404 and every new request got -32002 even after a reload; only
`host disconnect` cleared it. The rule: a request approved once is executed at most once, and a
request whose execution is unknown after a restart is resolved, never left pending; its outcome
is told truthfully (the hash when the transaction landed, a failure when nothing was sent).

Real parts: `serve` as its own process with a SQLite session store and the embedded wallet
(email sign-in through a local SMTP server), Hardhat (the devchain plugin) as the chain. The
visitor's frame is played by a `DeviceKey` (the frame's WebCrypto key) over HTTP.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore.embedded.masterkey import MasterKey
from modalcore.engine.persist import load_bytes
from modalcore.embedded.approval_tree import shown_hash
from modalcore.server.approval import approval_text
from modalcore.server.verify import registration_text
from modalcore.server.config import dev_networks
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client
from modalcore_testing.serve import ServeProcess as Engine, start_serve

from ..embedded.device import SEEN, DeviceKey

pytestmark = pytest.mark.chain

RECEIVER = "0x000000000000000000000000000000000000dEaD"
OPTS = {"networks": ["eip155:31337"], "metadata": {"name": "Kill dApp"}}
STEP_S = 60.0  # a loaded machine: generous, and never asserted as a duration


def _start(folder: Path) -> Engine:
    return start_serve(folder, folder / "engine.json")


class ChainGate:
    """A loopback JSON-RPC proxy in front of the Hardhat node that can hold the engine's calls of
    chosen methods (`hold`): a held call waits until `drop()`, which fails it (its caller, the
    killed engine, is gone: it never reaches the chain)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.hold: set[str] = set()
        self.held = threading.Event()  # a call is being held
        self._dropped = threading.Event()
        gate = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                calls = json.loads(body)
                methods = {c.get("method") for c in (calls if isinstance(calls, list) else [calls])}
                if methods & gate.hold:
                    gate.held.set()
                    gate._dropped.wait(STEP_S)
                    self.send_response(502)
                    self.end_headers()
                    return
                answer = httpx.post(gate.upstream, content=body, headers={"Content-Type": "application/json"},
                                    timeout=STEP_S)
                self.send_response(answer.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def drop(self) -> None:
        self.hold.clear()
        self._dropped.set()

    def close(self) -> None:
        self.drop()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def gate(devchain: ChainsInfo) -> Iterator[ChainGate]:
    proxy = ChainGate(devchain.rpc_urls[31337])
    yield proxy
    proxy.close()


@pytest.fixture()
def smtp() -> Iterator[LocalSmtpServer]:
    server = LocalSmtpServer().start()
    yield server
    server.stop()


@pytest.fixture()
def folder(tmp_path: Path, devchain: ChainsInfo, smtp: LocalSmtpServer, gate: ChainGate) -> Path:
    (tmp_path / "master.key").write_text(MasterKey.generate().hex())
    (tmp_path / "engine.json").write_text(json.dumps({
        "secret": TEST_SECRET, "analytics": {"mode": "off"},
        "store": {"kind": "sqlite", "path": "sessions.db"},
        "projects": {TEST_PROJECT: {"name": "Kill", "origins": [TEST_ORIGIN]}},
        "networks": dev_networks({**devchain.rpc_urls, 31337: gate.url}, devchain.deployment),
        "embedded": {"db": "embedded.db", "master_key_file": "master.key",
                     "smtp": {"host": "127.0.0.1", "port": smtp.port, "tls": "none",
                              "sender": "Wallet <no-reply@modal.test>"}},
    }))
    return tmp_path


def _rpc(chains: ChainsInfo, method: str, params: list[Any]) -> Any:
    with chains.rpc(31337) as rpc:
        return rpc.call(method, params)


def _code(smtp: LocalSmtpServer, email: str) -> str:
    deadline = time.monotonic() + STEP_S
    while not smtp.mailbox.to(email):
        assert time.monotonic() < deadline, f"no mail to {email}"
        time.sleep(0.05)
    found = re.search(r"\b(\d{6})\b", smtp.mailbox.to(email)[-1].body)
    assert found is not None
    return found.group(1)


def _answers(frames: list[dict[str, Any]], rpc_id: str) -> list[dict[str, Any]]:
    return [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "rpc"
            and f["data"].get("id") == rpc_id]


def _own(engine: Engine) -> dict[str, str]:
    """What the engine-origin frame's requests carry."""
    return {"Origin": engine.http, "Sec-Fetch-Site": "same-origin"}


async def _sign_in(client: Client, http: httpx.AsyncClient, engine: Engine, smtp: LocalSmtpServer,
                   device: DeviceKey) -> str:
    await client.join(opts=OPTS)
    await client.intent("host", "open", {})
    await client.intent("connect/email", "submit", {"value": "kim@example.com"})
    await client.recv_until(lambda f: "/embedded/signin?" in str(f), timeout=STEP_S)
    code = _code(smtp, "kim@example.com")
    answer = await http.post("/embedded/signin", headers=_own(engine), json={
        "session": client.session, "code": code, "public_key": device.spki,
        "signature": device.sign(registration_text(client.session, code))})
    assert answer.json() == {"verdict": "accepted"}
    frames = await client.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                     and f["data"].get("isConnected") is True, timeout=STEP_S)
    return str([f for f in frames if f["t"] == "host_event" and f.get("kind") == "account"][-1]["data"]["address"])


async def _approve(http: httpx.AsyncClient, engine: Engine, session: str, eid: str, device: DeviceKey) -> int:
    begun = (await http.post("/embedded/approve/begin", headers=_own(engine),
                             json={"session": session, "request": eid, "public_key": device.spki})).json()
    text = approval_text(session, eid, begun["digest"], begun["nonce"], True, SEEN, shown_hash(begun["tree"]))
    answer = await http.post("/embedded/approve", headers=_own(engine), json={
        "session": session, "request": eid, "approve": True, "nonce": begun["nonce"], "seen": SEEN, "tree_hash": shown_hash(begun["tree"]),
        "public_key": device.spki, "signature": device.sign(text)})
    return answer.status_code


def _saved_signing(folder: Path, session: str) -> bool | None:
    """What the session's saved state says of its request: signing (True), waiting (False), or
    no request (None). Read from the SQLite store while `serve` runs (WAL: readers never wait)."""
    db = sqlite3.connect(folder / "sessions.db")
    try:
        row = db.execute("SELECT data FROM sessions WHERE id = ?", (session,)).fetchone()
        blobs = {str(h): bytes(d) for h, d in db.execute("SELECT hash, data FROM blobs")}
    finally:
        db.close()
    if row is None:
        return False
    request = load_bytes(bytes(row[0]), blobs)[0].model.embedded.request
    return None if request is None else request.signing


async def _to_approved(client: Client, http: httpx.AsyncClient, engine: Engine, smtp: LocalSmtpServer,
                       chains: ChainsInfo, device: DeviceKey) -> tuple[str, str, str]:
    """Signed in, funded, the host asks a 0.002 ETH send, the visitor approves in the frame:
    (address, frame URL, request id)."""
    address = await _sign_in(client, http, engine, smtp, device)
    _rpc(chains, "hardhat_setBalance", [address, hex(10**18)])
    await client.intent("host", "rpc", {"id": "send-1", "method": "eth_sendTransaction",
                                        "params": [{"from": address, "to": RECEIVER, "value": hex(2 * 10**15)}]})
    got = await client.recv_until(lambda f: "approve/frame/" in str(f), timeout=STEP_S)
    found = re.search(r"/embedded/approve\?session=[\w-]+&request=(e\d+)", str(got[-1]))
    assert found is not None
    assert await _approve(http, engine, client.session, found.group(1), device) == 200
    return address, found.group(0), found.group(1)


def _nonce(chains: ChainsInfo, address: str) -> int:
    return int(_rpc(chains, "eth_getTransactionCount", [address, "pending"]), 16)


async def _after_restart(folder: Path, chains: ChainsInfo, device: DeviceKey, address: str, src: str, eid: str,
                         session: str, resume: str, seq: int, *, approval_may_wait: bool) -> None:
    """The page reloads on the restarted engine: the request is answered truthfully (or, when
    the approval never reached the saved state, waits for it again and runs once), the frame is
    gone, the wallet takes new requests, and at most one transaction left the account."""
    engine = _start(folder)
    try:
        async with Client.open(engine.ws, seq=seq) as again, \
                httpx.AsyncClient(base_url=engine.http, timeout=STEP_S) as http:
            frames = await again.join(resume=resume, opts=OPTS)
            assert again.session == session
            if not _answers(frames, "send-1") and approval_may_wait and (await http.get(src)).status_code == 200:
                # the kill came before the approval was saved: nothing ran, the frame asks again
                assert _nonce(chains, address) == 0
                assert await _approve(http, engine, session, eid, device) == 200
            if not _answers(frames, "send-1"):
                frames += await again.recv_until(lambda f: bool(_answers([f], "send-1")), timeout=STEP_S)
            answer = _answers(frames, "send-1")[-1]
            nonce = _nonce(chains, address)
            assert nonce <= 1  # at most once
            if answer["ok"]:  # it landed (or was sent now, the same signed bytes): its hash, truthfully
                assert nonce == 1
                receipt = _rpc(chains, "eth_getTransactionReceipt", [answer["result"]])
                assert receipt["status"] == "0x1" and receipt["from"].lower() == address.lower()
            else:  # nothing was sent: said so, typed
                assert nonce == 0 and "Not sent" in answer["message"]
            # resolved, not pending: the frame is gone, the wallet answers a new request
            assert (await http.get(src)).status_code == 404
            await again.intent("host", "rpc", {"id": "chain-2", "method": "eth_chainId", "params": []},
                               iid="after-restart-1")  # the page numbers its intents anew
            frames = await again.recv_until(lambda f: bool(_answers([f], "chain-2")), timeout=STEP_S)
            assert _answers(frames, "chain-2") == [{"id": "chain-2", "ok": True, "result": "0x7a69"}]
            await again.quiet(0.5)
            assert _nonce(chains, address) == nonce
    finally:
        engine.stop()


async def test_rule_a_kill_right_after_approve_runs_the_send_at_most_once(
        folder: Path, devchain: ChainsInfo, smtp: LocalSmtpServer) -> None:
    """The reported timing: SIGKILL as soon as Approve answered 200."""
    engine = _start(folder)
    device = DeviceKey()
    try:
        async with Client.open(engine.ws) as client, httpx.AsyncClient(base_url=engine.http, timeout=STEP_S) as http:
            address, src, eid = await _to_approved(client, http, engine, smtp, devchain, device)
            engine.kill()
            session, resume, seq = client.session, client.resume, client.seq
    finally:
        engine.stop()
    await _after_restart(folder, devchain, device, address, src, eid, session, resume, seq, approval_may_wait=True)


async def _kill_while_held(folder: Path, chains: ChainsInfo, smtp: LocalSmtpServer, gate: ChainGate,
                           methods: set[str]) -> tuple[DeviceKey, str, str, str, str, str, int]:
    """Approve with the engine's chain calls of `methods` held; SIGKILL once the saved state
    says the approved request is being signed (the issue's `signing=True` saved) and the held
    call is waiting; the held call never reaches the chain."""
    engine = _start(folder)
    device = DeviceKey()
    try:
        async with Client.open(engine.ws) as client, httpx.AsyncClient(base_url=engine.http, timeout=STEP_S) as http:
            gate.hold = set(methods)
            address, src, eid = await _to_approved(client, http, engine, smtp, chains, device)
            assert gate.held.wait(STEP_S), "the signer never called the chain"
            deadline = time.monotonic() + STEP_S
            while _saved_signing(folder, client.session) is not True:
                assert time.monotonic() < deadline, "the approval was never saved"
                time.sleep(0.01)
            engine.kill()
            gate.drop()
            return device, address, src, eid, client.session, client.resume, client.seq
    finally:
        engine.stop()


async def test_rule_killed_while_signing_before_the_broadcast_record_is_failed_not_left_pending(
        folder: Path, devchain: ChainsInfo, smtp: LocalSmtpServer, gate: ChainGate) -> None:
    """The signer was reading the nonce and fees when the engine died: nothing was recorded,
    nothing sent; the restarted engine says so (typed), and the view leaves the approval."""
    device, address, src, eid, session, resume, seq = await _kill_while_held(
        folder, devchain, smtp, gate, {"eth_getTransactionCount"})
    assert _nonce(devchain, address) == 0
    await _after_restart(folder, devchain, device, address, src, eid, session, resume, seq, approval_may_wait=False)
    assert _nonce(devchain, address) == 0


async def test_rule_killed_between_record_and_broadcast_sends_the_same_bytes_once_on_restart(
        folder: Path, devchain: ChainsInfo, smtp: LocalSmtpServer, gate: ChainGate) -> None:
    """The signer recorded the signed transaction and its broadcast never reached the chain:
    the restarted engine sends those very bytes (same nonce, same hash), once, and answers it."""
    device, address, src, eid, session, resume, seq = await _kill_while_held(
        folder, devchain, smtp, gate, {"eth_sendRawTransaction"})
    assert _nonce(devchain, address) == 0
    recorded = sqlite3.connect(folder / "embedded.db").execute(
        "SELECT hash FROM send_intents WHERE session = ? AND eid = ?", (session, eid)).fetchone()
    assert recorded is not None
    await _after_restart(folder, devchain, device, address, src, eid, session, resume, seq, approval_may_wait=False)
    assert _nonce(devchain, address) == 1
    assert _rpc(devchain, "eth_getTransactionReceipt", [recorded[0]])["status"] == "0x1"
