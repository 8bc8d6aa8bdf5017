"""Continue on your phone over HTTP, against a real engine (issue 44 item 1), played as the phone,
the visitor's computer and the attacker (the host's server: it sees the link in the tree and can
POST anything with any headers).

Rules: the link is claimed once, within 2 minutes, from the engine's origin; a claim links nothing
until the computer's confirmation frame signs with the visitor's registered key; the linked phone
approves a request with its own key; every refusal is typed, changes nothing, logs no traceback.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.embedded.approval_tree import shown_hash
from modalcore.server.approval import approval_text
from modalcore.server.handoff import SEEN as PHONE_SEEN
from modalcore.server.handoff_confirm import confirm_text
from modalcore.slices.handoff import LINK_TTL_MS, link_digest
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import Client, RunningServer

from ..embedded.device import SEEN, DeviceKey, frame_headers, registration
from ..embedded.test_approval_credential import CLOCK, _rpc_answers, code_for, engine, mail

__all__ = ["engine", "mail"]  # the credential tests' engine (with the embedded wallet) and mailbox

OPTS = {"networks": ["eip155:1"], "features": {"continueOnPhone": True}}


@pytest.fixture
def clock() -> Iterator[None]:
    """The engine's clock shifted from where it is: the credential tests, which share CLOCK, may
    leave it shifted (run alone here it is 0; in the whole suite it is not)."""
    yield
    CLOCK.shift_ms = 0


async def _signed_in(client: Client, http: httpx.AsyncClient, mail: LocalSmtpServer, email: str,
                     device: DeviceKey, opts: dict[str, Any] = OPTS) -> str:
    await client.join(opts=opts)
    return await _sign_in_joined(client, http, mail, email, device)


async def _sign_in_joined(client: Client, http: httpx.AsyncClient, mail: LocalSmtpServer, email: str,
                          device: DeviceKey) -> str:
    """The joined session signs in by email with the embedded wallet on `device`; its address."""
    await client.intent("host", "open", {})
    await client.intent("connect/email", "submit", {"value": email})
    await client.recv_until(lambda f: "/embedded/signin?" in str(f))
    before = len(mail.mailbox.to(email))
    answer = await http.post("/embedded/signin", json=registration(client.session, code_for(mail, email, before or 1), device),
                             headers=frame_headers(str(http.base_url)))
    assert answer.json() == {"verdict": "accepted"}
    frames = await client.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                     and f["data"].get("isConnected") is True)
    return str([f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"][-1]["address"])


async def _link(client: Client) -> str:
    """Continue on your phone → Copy link: the link the QR code draws."""
    await client.intent("host", "open", {})
    await client.intent("footer/continue-on-phone", "press", {})
    await client.recv_until(lambda f: "handoff/copy" in str(f))
    await client.intent("handoff/copy", "press", {})
    frames = await client.recv_until(lambda f: f["t"] == "effect" and f.get("kind") == "clipboard")
    return str(frames[-1]["req"]["text"])


async def _linked_with_no_account(client: Client, http: httpx.AsyncClient,
                                  opts: dict[str, Any]) -> tuple[DeviceKey, str]:
    """A session with no account joins with `opts`, a phone claims its link and the modal's own
    Yes links it: the phone's key and the link."""
    await client.join(opts=opts)
    phone_key = DeviceKey()
    link = await _link(client)
    assert (await _claim(http, link, phone_key)).status_code == 202
    await client.recv_until(lambda f: "handoff/yes" in str(f))
    await client.intent("handoff/yes", "press", {})
    await client.recv_until(lambda f: "Your phone is connected" in str(f))
    return phone_key, link


def _part(link: str) -> str:
    return link.rsplit("/continue/", 1)[1]


async def _claim(http: httpx.AsyncClient, link: str, key: DeviceKey, headers: dict[str, str] | None = None) -> httpx.Response:
    return await http.post("/continue/claim", json={"link": _part(link), "public_key": key.spki},
                           headers=frame_headers(str(http.base_url)) if headers is None else headers)


async def _status(http: httpx.AsyncClient, link: str, key: DeviceKey) -> dict[str, Any]:
    found: dict[str, Any] = (await http.post("/continue/status", json={"link": _part(link), "public_key": key.spki})).json()
    return found


async def _confirm(http: httpx.AsyncClient, session: str, digest: str, phone: DeviceKey, desktop: DeviceKey,
                   headers: dict[str, str]) -> httpx.Response:
    begun = (await http.post("/continue-confirm/begin", json={"session": session, "public_key": desktop.spki})).json()
    text = confirm_text(session, digest, phone.spki, begun["nonce"], SEEN)
    return await http.post("/continue-confirm", json={"session": session, "nonce": begun["nonce"], "seen": SEEN,
                                                      "public_key": desktop.spki, "signature": desktop.sign(text)},
                           headers=headers)


async def _signed_in_and_linked(client: Client, http: httpx.AsyncClient, mail: LocalSmtpServer, email: str,
                                phone: DeviceKey) -> tuple[str, str]:
    """The computer signed in as `email` (on a key of its own), its link claimed by `phone` and
    confirmed by the computer's frame: the account's address and the link."""
    desktop = DeviceKey()
    address = await _signed_in(client, http, mail, email, desktop)
    link = await _link(client)
    assert (await _claim(http, link, phone)).status_code == 202
    await client.recv_until(lambda f: "Does your phone show this code?" in str(f))
    digest = link_digest(client.session, _part(link).rsplit(".", 1)[1])
    yes = await _confirm(http, client.session, digest, phone, desktop, frame_headers(str(http.base_url)))
    assert yes.status_code == 200, yes.text
    await client.recv_until(lambda f: "Your phone is connected" in str(f))
    return address, link


async def _approval(http: httpx.AsyncClient, session: str, eid: str,
                    body: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """The phone begins approving request `eid` (`body` names it, by the link or the session):
    the Approve's body without its signature, and the text the phone signs for it."""
    begun = (await http.post("/continue/begin", json=body)).json()
    shown = shown_hash(begun["tree"])
    text = approval_text(session, eid, begun["digest"], begun["nonce"], True, PHONE_SEEN, shown)
    return {**body, "approve": True, "nonce": begun["nonce"], "tree_hash": shown}, text


async def _approved_by_the_phone(client: Client, http: httpx.AsyncClient, answer: dict[str, Any], phone: DeviceKey,
                                 text: bytes, message: str, address: str) -> None:
    """The phone's signed Approve is taken, and the host page's personal_sign of `message` is
    answered with `address`'s signature."""
    ok = await http.post("/continue/approve", json={**answer, "signature": phone.sign(text)},
                         headers=frame_headers(str(http.base_url)))
    assert ok.status_code == 200, ok.text
    frames = await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
    result = _rpc_answers(frames)[-1]
    assert result["ok"] is True
    assert Account.recover_message(encode_defunct(hexstr=message), signature=result["result"]) == address


async def test_a_phone_claims_once_the_computer_confirms_with_its_key_and_the_phone_approves(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        desktop, phone, attacker = DeviceKey(), DeviceKey(), DeviceKey()
        address = await _signed_in(client, http, mail, "ola@example.com", desktop)
        link = await _link(client)
        assert link.startswith(f"{engine.http_url}/continue/{client.session}.")
        assert (await http.get(link.removeprefix(engine.http_url))).status_code == 200

        # refused before any claim: not from the engine's origin, another origin, a made-up link
        cross = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
        same_site = {"Origin": "http://localhost:1", "Sec-Fetch-Site": "same-site"}
        made_up = f"{engine.http_url}/continue/{client.session}.guessed"
        refused = [await _claim(http, link, attacker, cross), await _claim(http, link, attacker, same_site),
                   await _claim(http, made_up, attacker)]
        assert [(r.status_code, r.json()["error"]) for r in refused] == [
            (403, "foreign_origin"), (403, "foreign_origin"), (403, "unknown_link")]
        assert (await _status(http, link, phone))["state"] == "waiting"  # still on offer

        # the phone claims it; a second claim (the leaked link) is refused, and its page too
        assert (await _claim(http, link, phone)).status_code == 202
        await client.recv_until(lambda f: "Does your phone show this code?" in str(f))
        seen = await _status(http, link, phone)
        assert seen["state"] == "confirm" and re.fullmatch(r"\d{6}", seen["code"])
        again = await _claim(http, link, attacker)
        assert (again.status_code, again.json()["error"]) == (410, "used_link")
        page = await http.get(link.removeprefix(engine.http_url))
        assert page.status_code == 410 and "data-refusal=used_link" in page.text
        assert (await _status(http, link, attacker))["error"] == "used_link"

        # the host's server cannot confirm: its key is not registered, and the visitor's key
        # does not sign for it
        full = link_digest(client.session, _part(link).rsplit(".", 1)[1])
        assert f"handoff/confirm/{full[:16]}" in str(client.frames)  # the frame ContinueOnPhone draws
        forged = {"Origin": engine.http_url, "Sec-Fetch-Site": "same-origin"}
        no = [await _confirm(http, client.session, full, phone, attacker, forged),  # its own key
              await _confirm(http, client.session, full, attacker, desktop, forged),  # the visitor's, for its phone
              await _confirm(http, client.session, full, phone, desktop, {})]  # not from the frame
        assert [r.status_code for r in no] == [403, 403, 403]
        assert (await _status(http, link, phone))["state"] == "confirm"

        # the visitor's frame confirms: the phone is linked
        yes = await _confirm(http, client.session, full, phone, desktop, frame_headers(engine.http_url))
        assert yes.status_code == 200, yes.text
        await client.recv_until(lambda f: "Your phone is connected" in str(f))
        assert (await _status(http, link, phone)) == {"state": "linked", "request": None}

        # a signature request waits for the phone; the phone approves it with its own key
        message = "0x" + b"from the phone".hex()
        await client.intent("host", "rpc", {"id": "1", "method": "personal_sign", "params": [message, address]})
        await client.recv_until(lambda f: "Waiting for your phone" in str(f))
        eid = (await _status(http, link, phone))["request"]
        assert isinstance(eid, str)
        answer, text = await _approval(http, client.session, eid,
                                       {"link": _part(link), "public_key": phone.spki, "request": eid})
        # the attacker's key, and the phone's signature over another verdict, approve nothing
        bad = [await http.post("/continue/approve", json={**answer, "public_key": attacker.spki, "signature": attacker.sign(text)},
                               headers=frame_headers(engine.http_url)),
               await http.post("/continue/approve", json={**answer, "signature": phone.sign(text + b"x")},
                               headers=frame_headers(engine.http_url))]
        assert [r.status_code for r in bad] == [404, 403]
        assert not _rpc_answers(await client.quiet(0.3))
        await _approved_by_the_phone(client, http, answer, phone, text, message, address)
    assert "Traceback" not in caplog.text


async def test_a_link_claimed_after_2_minutes_is_refused_expired_and_changes_nothing(
        engine: RunningServer, mail: LocalSmtpServer, clock: None, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        await _signed_in(client, http, mail, "pia@example.com", DeviceKey())
        link = await _link(client)
        CLOCK.shift_ms += LINK_TTL_MS
        late = await _claim(http, link, DeviceKey())
        assert (late.status_code, late.json()["error"]) == (410, "expired_link")
        page = await http.get(link.removeprefix(engine.http_url))
        assert page.status_code == 410 and "data-refusal=expired_link" in page.text
        assert "Does your phone show this code?" not in str(await client.quiet(0.3))
    assert "Traceback" not in caplog.text
    assert "expired_link" in caplog.text


@pytest.mark.parametrize("path", ["/continue/claim", "/continue/status", "/continue/begin", "/continue/approve",
                                  "/continue-confirm/begin", "/continue-confirm"])
async def test_malformed_bodies_are_refused_without_a_traceback(
        engine: RunningServer, path: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    bodies: list[Any] = [[], "x", 5, None, {"link": 5}, {"link": "s" * 300, "public_key": "AAAA"},
                         {"link": "a.b", "session": "s", "public_key": "AAAA", "request": "e1", "nonce": "1.2.3",
                          "seen": "x", "tree_hash": "h", "signature": "!!", "approve": "yes"}]
    async with httpx.AsyncClient(base_url=engine.http_url, timeout=10, headers=frame_headers(engine.http_url)) as http:
        statuses = [(await http.post(path, json=body)).status_code for body in bodies]
        statuses.append((await http.post(path, content=b"{" * 3000)).status_code)
        statuses.append((await http.post(path, content=b"\xff\xfe")).status_code)
        pages = [(await http.get(f"/continue/{value}")).status_code for value in ("x", "a.b", "." * 10, "s" * 500)]
    assert all(400 <= s < 500 for s in statuses), statuses
    assert all(400 <= s < 500 for s in pages), pages
    assert "Traceback" not in caplog.text
