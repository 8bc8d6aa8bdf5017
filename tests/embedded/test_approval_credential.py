"""Issue 27 §1: approvals are bound to a credential the host cannot obtain.

The attacker is the host dApp's server: it holds the session's websocket (every frame the
session sends), the session id, the request id and the approval frame's URL, can GET any page
and POST anything with any headers (a forged `Origin`). The visitor's browser is played by a
`DeviceKey` (the frame's WebCrypto key): registered by the sign-in code typed inside the frame.
Whatever the attacker does is refused, nothing is signed or sent, and no traceback is logged;
the visitor's frame approves; a captured approval is refused when replayed or moved to another
request; a browser without a registered key verifies inside the frame first.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore_dev.devmail import LocalSmtpServer
from modalcore.runtime.clock import RealClock
from modalcore.embedded.approval_tree import shown_hash
from modalcore.server.approval import approval_text
from modalcore_testing import Client, RunningServer

from .mail_engine import mail_engine
from .device import SEEN, DeviceKey, frame_headers, registration

class ShiftedClock(RealClock):
    """The wall clock, moved forward by the test (the 30 s between codes, without waiting)."""

    shift_ms = 0

    def now_ms(self) -> int:
        return super().now_ms() + self.shift_ms


CLOCK = ShiftedClock()
SEND = {"from": "", "to": "0x000000000000000000000000000000000000dEaD", "value": "0xde0b6b3a7640000"}  # 1 ETH


@pytest.fixture(scope="module")
def mail() -> Iterator[LocalSmtpServer]:
    server = LocalSmtpServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, mail: LocalSmtpServer) -> Iterator[RunningServer]:
    with mail_engine(tmp_path_factory.mktemp("credential"), mail, clock=CLOCK) as running:
        yield running


def code_for(mail: LocalSmtpServer, email: str, count: int) -> str:
    deadline = time.monotonic() + 10
    while len(mail.mailbox.to(email)) < count:
        assert time.monotonic() < deadline, f"no mail to {email}"
        time.sleep(0.05)
    found = re.search(r"\b(\d{6})\b", mail.mailbox.to(email)[-1].body)
    assert found is not None
    return found.group(1)


def _rpc_answers(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "rpc"]


def _address(frames: list[dict[str, Any]]) -> str:
    found = [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"
             and f["data"].get("isConnected")]
    return str(found[-1]["address"])


async def sign_in(client: Client, http: httpx.AsyncClient, mail: LocalSmtpServer, email: str,
                  device: DeviceKey) -> str:
    """The visitor: email on Connect (host DOM), the mailed code typed in the sign-in frame."""
    await client.join(opts={"networks": ["eip155:1"]})
    await client.intent("host", "open", {})
    await client.intent("connect/email", "submit", {"value": email})
    got = await client.recv_until(lambda f: "/embedded/signin?" in str(f))
    src = re.search(r"/embedded/signin\?session=[\w-]+", str(got[-1]))
    assert src is not None and (await http.get(src.group(0))).status_code == 200
    code = code_for(mail, email, 1)
    answer = await http.post("/embedded/signin", json=registration(client.session, code, device),
                             headers=frame_headers(str(http.base_url)))
    assert answer.json() == {"verdict": "accepted"}
    frames = await client.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                     and f["data"].get("isConnected") is True)
    return _address(frames)


async def ask(client: Client, rpc_id: str, method: str, params: list[Any]) -> tuple[str, str]:
    """The host asks the embedded wallet; the approval frame's URL and request id appear."""
    await client.intent("host", "rpc", {"id": rpc_id, "method": method, "params": params})
    got = await client.recv_until(lambda f: "approve/frame/" in str(f))
    src = re.search(r"/embedded/approve\?session=[\w-]+&request=(e\d+)", str(got[-1]))
    assert src is not None
    return src.group(0), src.group(1)


async def approve(http: httpx.AsyncClient, session: str, eid: str, device: DeviceKey,
                  headers: dict[str, str] | None = None) -> tuple[httpx.Response, dict[str, Any]]:
    """What the frame does on Approve: a fresh challenge, signed by the browser's key."""
    begun = (await http.post("/embedded/approve/begin", json={"session": session, "request": eid,
                                                              "public_key": device.spki})).json()
    text = approval_text(session, eid, begun["digest"], begun["nonce"], True, SEEN, shown_hash(begun["tree"]))
    body = {"session": session, "request": eid, "approve": True, "nonce": begun["nonce"], "seen": SEEN, "tree_hash": shown_hash(begun["tree"]),
            "public_key": device.spki, "signature": device.sign(text)}
    return await http.post("/embedded/approve", json=body, headers=headers or {}), body


async def test_the_host_server_cannot_approve_a_send_or_a_signature_with_what_it_can_learn(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    """The reported attack: GET the frame URL the host page sees, POST from a server with a
    forged Origin (the page's bytes, a key of its own, a guessed code): refused, nothing sent."""
    caplog.set_level(logging.INFO)
    forged = {"Origin": engine.http_url, "Sec-Fetch-Site": "same-origin"}
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        visitor = DeviceKey()
        address = await sign_in(client, http, mail, "nia@example.com", visitor)
        for rpc_id, method, params in (("1", "eth_sendTransaction", [{**SEND, "from": address}]),
                                       ("2", "personal_sign", ["0x" + b"pay me".hex(), address])):
            src, eid = await ask(client, rpc_id, method, params)
            page = await http.get(src)  # what "a plain GET from anywhere" returns
            assert page.status_code == 200 and "token" not in page.text and client.session in page.text
            attacker = DeviceKey()
            token = re.search(r'token: "([^"]+)"', page.text)  # issue 27's report: the page's token
            refused = [
                await http.post("/embedded/approve", json={"session": client.session, "request": eid, "approve": True,
                                                           "token": token.group(1) if token else ""}, headers=forged),
                (await approve(http, client.session, eid, attacker, forged))[0],  # its own key
                await http.post("/embedded/approve", json={"session": client.session, "request": eid, "approve": True,
                                                           "nonce": "1.x.y", "public_key": visitor.spki,
                                                           "signature": "AA"}, headers=forged),
                await http.post("/embedded/verify/code", json=registration(client.session, "000000", attacker),
                                headers=forged),
                await http.post("/embedded/signin", json=registration(client.session, "000000", attacker),
                                headers=forged),
                (await approve(http, client.session, eid, attacker, forged))[0],  # still not registered
            ]
            assert [r.status_code for r in refused] == [400, 403, 403, 200, 404, 403]
            assert refused[3].json()["verdict"] != "accepted"  # no code was asked: nothing to guess
            assert not _rpc_answers(await client.quiet(0.3))  # nothing signed, nothing sent
            assert (await http.get(src)).status_code == 200  # the request still waits for the visitor
            answer, _ = await approve(http, client.session, eid, visitor)  # the visitor's frame
            assert answer.status_code == 200
            frames = await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
            if method == "personal_sign":
                result = _rpc_answers(frames)[-1]
                assert result["ok"] is True
                assert Account.recover_message(encode_defunct(hexstr=str(params[0])), signature=result["result"]) == address
    assert "Traceback" not in caplog.text


async def test_the_code_is_taken_only_from_an_engine_origin_page_with_the_key_it_registers(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 38 item 1 for the email code: the right code posted by a page on another origin of
    the engine's site (`Sec-Fetch-Site: same-site`, its own Origin), by a request without the
    browser's header, from another site, with a signature by another key than the one to
    register, or with none: 403, nothing compared, nothing spent; the frame's own post of the
    same code then signs in."""
    caplog.set_level(logging.INFO)
    email = "oli@example.com"
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        await client.join(opts={"networks": ["eip155:1"]})
        await client.intent("host", "open", {})
        await client.intent("connect/email", "submit", {"value": email})
        await client.recv_until(lambda f: "/embedded/signin?" in str(f))
        code = code_for(mail, email, 1)
        host, visitor = DeviceKey(), DeviceKey()
        body = registration(client.session, code, host)
        own = frame_headers(engine.http_url)
        refused = [
            await http.post("/embedded/signin", json=body, headers={"Origin": "http://127.0.0.1:1",
                                                                    "Sec-Fetch-Site": "same-site"}),
            await http.post("/embedded/signin", json=body),
            await http.post("/embedded/signin", json=body, headers={"Origin": "https://evil.example",
                                                                    "Sec-Fetch-Site": "cross-site"}),
            await http.post("/embedded/signin", json=body, headers={"Origin": "http://127.0.0.1:1",
                                                                    "Sec-Fetch-Site": "same-origin"}),
            await http.post("/embedded/signin", json={**body, "public_key": visitor.spki}, headers=own),
            await http.post("/embedded/signin", json={k: v for k, v in body.items() if k != "signature"},
                            headers=own),
        ]
        assert [r.status_code for r in refused] == [403, 403, 403, 403, 403, 400]
        assert not [f for f in await client.quiet(0.3) if f["t"] == "host_event" and f.get("kind") == "account"
                    and f["data"].get("isConnected")]
        answer = await http.post("/embedded/signin", json=registration(client.session, code, visitor), headers=own)
        assert answer.json() == {"verdict": "accepted"}  # the refusals spent none of the code's attempts
        await client.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                and f["data"].get("isConnected") is True)
    assert "Traceback" not in caplog.text


async def test_a_captured_approval_is_refused_replayed_or_for_another_request(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        visitor = DeviceKey()
        address = await sign_in(client, http, mail, "oto@example.com", visitor)
        _, first = await ask(client, "1", "personal_sign", ["0x01", address])
        answer, captured = await approve(http, client.session, first, visitor)
        assert answer.status_code == 200
        await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
        assert (await http.post("/embedded/approve", json=captured)).status_code == 403  # replayed
        src, second = await ask(client, "2", "personal_sign", ["0x02", address])
        moved = [
            {**captured, "request": second},  # the same signature and nonce, another request
        ]
        begun = (await http.post("/embedded/approve/begin", json={"session": client.session, "request": second,
                                                                  "public_key": visitor.spki})).json()
        moved.append({**captured, "request": second, "nonce": begun["nonce"]})  # a fresh nonce, the old signature
        for body in moved:
            assert (await http.post("/embedded/approve", json=body)).status_code == 403
        assert not _rpc_answers(await client.quiet(0.3))
        assert (await http.get(src)).status_code == 200
        # a reject needs the frame's own origin as the browser says it; it is then no harm to accept
        assert (await http.post("/embedded/approve", json={**moved[1], "approve": False})).status_code == 403
    assert "Traceback" not in caplog.text


async def test_a_browser_without_a_registered_key_verifies_by_email_inside_the_frame(
        engine: RunningServer, mail: LocalSmtpServer) -> None:
    """A second browser (another key) of the signed-in visitor: its Approve is refused until the
    code mailed on its request is typed in its frame; then it approves."""
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10,
                                                           headers=frame_headers(engine.http_url)) as http:
        address = await sign_in(client, http, mail, "pia@example.com", DeviceKey())
        _, eid = await ask(client, "1", "personal_sign", ["0x03", address])
        other = DeviceKey()
        begun = (await http.post("/embedded/approve/begin", json={"session": client.session, "request": eid,
                                                                  "public_key": other.spki})).json()
        assert begun["registered"] is False and begun["verify"] == "email" and begun["who"] == "pia@example.com"
        assert (await approve(http, client.session, eid, other))[0].status_code == 403
        sent = len(mail.mailbox.to("pia@example.com"))
        asked = await http.post("/embedded/verify/send", json={"session": client.session})
        # the sign-in code was mailed < 30 s ago: the frame is told to wait (behaviour.md §5's text)
        assert asked.status_code == 200 and asked.json()["status"] == "rate_limited"
        assert asked.json()["message"].startswith("Please try again after ")
        assert len(mail.mailbox.to("pia@example.com")) == sent
        CLOCK.shift_ms += 31_000
        asked = await http.post("/embedded/verify/send", json={"session": client.session})
        assert asked.json() == {"status": "sent", "message": "A new code was sent to pia@example.com"} or \
            asked.json()["status"] == "sent"
        code = code_for(mail, "pia@example.com", sent + 1)
        wrong = await http.post("/embedded/verify/code", json=registration(client.session, "x" * 6, other))
        assert wrong.status_code == 400
        unsigned = await http.post("/embedded/verify/code", json={**registration(client.session, code, other),
                                                                  "signature": other.sign(b"another text")})
        assert unsigned.status_code == 403  # the key to register did not sign: nothing checked, nothing spent
        checked = await http.post("/embedded/verify/code", json=registration(client.session, code, other))
        assert checked.json()["verdict"] == "accepted"
        answer, _ = await approve(http, client.session, eid, other)
        assert answer.status_code == 200
        frames = await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
        assert _rpc_answers(frames)[-1]["ok"] is True


async def test_figures_approve_to_answer(engine: RunningServer, mail: LocalSmtpServer) -> None:
    """Not a timing assertion: prints how long the engine takes from the frame's signed Approve
    (signature checked, ApprovalDecided delivered, the engine key signs) to the host's answer."""
    took: list[float] = []
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        visitor = DeviceKey()
        address = await sign_in(client, http, mail, "rho@example.com", visitor)
        for n in range(20):
            _, eid = await ask(client, str(n), "personal_sign", [hex(1000 + n), address])
            begun = (await http.post("/embedded/approve/begin", json={"session": client.session, "request": eid,
                                                                      "public_key": visitor.spki})).json()
            text = approval_text(client.session, eid, begun["digest"], begun["nonce"], True, SEEN, shown_hash(begun["tree"]))
            body = {"session": client.session, "request": eid, "approve": True, "nonce": begun["nonce"], "seen": SEEN, "tree_hash": shown_hash(begun["tree"]),
                    "public_key": visitor.spki, "signature": visitor.sign(text)}
            started = time.perf_counter()
            assert (await http.post("/embedded/approve", json=body)).status_code == 200
            frames = await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
            took.append(1000 * (time.perf_counter() - started))
            assert _rpc_answers(frames)[-1]["ok"] is True
    took.sort()
    print(f"signed Approve POST → host answer: p50 {took[len(took) // 2]:.1f} ms, max {took[-1]:.1f} ms (20 runs)")


@pytest.mark.parametrize("path", ["/embedded/approve", "/embedded/approve/begin", "/embedded/signin",
                                  "/embedded/verify/send", "/embedded/verify/code", "/embedded/verify/social"])
async def test_malformed_bodies_are_refused_without_a_traceback(
        engine: RunningServer, path: str, caplog: pytest.LogCaptureFixture) -> None:
    """Every bound of the frame routes: too large, not JSON, not an object, wrong types, ids too
    long, not a public key, not a signature: 4xx, nothing changes, no traceback."""
    caplog.set_level(logging.INFO)
    ed25519 = "MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE"  # a valid key, not P-256
    bodies: list[Any] = [[], "x", 5, None, {"session": 5}, {"session": "s" * 200, "request": "e1"},
                         {"session": "s", "request": "e1", "public_key": ed25519, "code": "123456",
                          "nonce": "1.2.3", "signature": "!!", "approve": True},
                         {"session": "s", "request": "e1", "public_key": "AAAA", "code": "12", "nonce": "",
                          "signature": "", "approve": "yes"}]
    async with httpx.AsyncClient(base_url=engine.http_url, timeout=10, headers=frame_headers(engine.http_url)) as http:
        statuses = [(await http.post(path, json=body)).status_code for body in bodies]
        statuses.append((await http.post(path, content=b"{" * 3000)).status_code)
        statuses.append((await http.post(path, content=b"\xff\xfe")).status_code)
    assert all(400 <= s < 500 for s in statuses), statuses
    assert "Traceback" not in caplog.text


async def test_rule_a_tree_drawn_for_one_call_cannot_approve_another(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    """The Approve signature covers the hash of the approval tree the frame drew (issue 43 item
    4): the visitor's own key signing the hash of the tree drawn for call A does not approve
    call B, whichever digest it names; refused, typed, nothing signed, no traceback."""
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        visitor = DeviceKey()
        address = await sign_in(client, http, mail, "tree@example.com", visitor)
        _, first = await ask(client, "1", "personal_sign", ["0x01", address])
        drawn = (await http.post("/embedded/approve/begin", json={"session": client.session, "request": first,
                                                                  "public_key": visitor.spki})).json()
        assert (await approve(http, client.session, first, visitor))[0].status_code == 200
        await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
        _, second = await ask(client, "2", "eth_sendTransaction", [{**SEND, "from": address}])
        begun = (await http.post("/embedded/approve/begin", json={"session": client.session, "request": second,
                                                                  "public_key": visitor.spki})).json()
        assert shown_hash(begun["tree"]) != shown_hash(drawn["tree"])
        for digest in (begun["digest"], drawn["digest"]):
            text = approval_text(client.session, second, digest, begun["nonce"], True, SEEN, shown_hash(drawn["tree"]))
            answer = await http.post("/embedded/approve", json={
                "session": client.session, "request": second, "approve": True, "nonce": begun["nonce"], "seen": SEEN,
                "tree_hash": shown_hash(drawn["tree"]), "public_key": visitor.spki, "signature": visitor.sign(text)})
            assert (answer.status_code, answer.json()) == (403, {"error": "the approval shown is not the one waiting"})
        missing = await http.post("/embedded/approve", json={
            "session": client.session, "request": second, "approve": True, "nonce": begun["nonce"], "seen": SEEN,
            "public_key": visitor.spki, "signature": visitor.sign(b"x")})
        assert (missing.status_code, missing.json()) == (403, {"error": "no hash of the approval shown"})
        assert not _rpc_answers(await client.quiet(0.3))  # nothing signed, nothing sent
        # the tree drawn for this call approves it (the nonce was not spent by the refusals)
        text = approval_text(client.session, second, begun["digest"], begun["nonce"], True, SEEN,
                             shown_hash(begun["tree"]))
        answer = await http.post("/embedded/approve", json={
            "session": client.session, "request": second, "approve": True, "nonce": begun["nonce"], "seen": SEEN,
            "tree_hash": shown_hash(begun["tree"]), "public_key": visitor.spki, "signature": visitor.sign(text)})
        assert answer.status_code == 200
    assert "Traceback" not in caplog.text
