"""Passkeys through the engine's routes (issue 43 §3, §4; server/passkey.py, approval.py): the
visitor signed in with the mailed code adds a passkey from a browser that may approve; another
session (a fresh browser) signs in with it without the code, to the same account, and approves
with it; an assertion for another session, request or origin, a replayed one, or a registration
from a browser that may not approve is refused with a typed error, nothing signed, no traceback.
The authenticator is modalcore_testing.passkey's software one; the engine is 127.0.0.1."""

from __future__ import annotations

import base64
import logging
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.embedded.approval_tree import shown_hash
from modalcore.embedded.passkeys import PasskeyRefused, approval_challenge
from modalcore.server.approval import approval_text
from modalcore.server.passkey import registration_text, signin_text
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, Client, RunningServer
from modalcore_testing.passkey import SoftAuthenticator

from .device import SEEN, DeviceKey, frame_headers
from .test_approval_credential import _rpc_answers, ask, engine, mail, sign_in  # noqa: F401 (fixtures)

RP_ID = "127.0.0.1"


def script_parses(html: str, folder: Path) -> None:
    """The frame page's script is JavaScript Node parses (a helper named twice, as the passkey
    helpers once did beside the tree script, stops the whole frame)."""
    found = re.search(r"<script nonce=\"[^\"]+\">(.*)</script>", html, re.S)
    assert found is not None
    path = folder / "frame.js"
    path.write_text(found.group(1), encoding="utf-8")
    node = shutil.which("node")
    assert node is not None
    checked = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


async def add_passkey(http: httpx.AsyncClient, session: str, device: DeviceKey, passkey: SoftAuthenticator,
                      origin: str) -> httpx.Response:
    """What the Account view's "Add a passkey" frame does."""
    own = frame_headers(origin)
    begun = (await http.post("/embedded/passkey/begin", json={"session": session, "purpose": "register"},
                             headers=own)).json()
    challenge = unb64(begun["challenge"])
    credential = passkey.create(challenge, origin, begun["rp_id"], unb64(begun["user_id"]))
    signature = device.sign(registration_text(session, credential["id"], challenge))
    return await http.post("/embedded/passkey/register", json={"session": session, "public_key": device.spki,
                                                               "signature": signature, "credential": credential},
                           headers=own)


async def approve_with_passkey(http: httpx.AsyncClient, session: str, eid: str, passkey: SoftAuthenticator,
                               origin: str, text_session: str | None = None, text_eid: str | None = None
                               ) -> tuple[httpx.Response, dict[str, Any]]:
    """The approval frame's Approve when the account has a passkey: it signs the SHA-256 of the
    approval text (optionally the text of another session or request: the attack)."""
    device = DeviceKey()  # this browser's key is not registered: the passkey approves
    begun = (await http.post("/embedded/approve/begin", json={"session": session, "request": eid,
                                                              "public_key": device.spki})).json()
    assert begun["passkeys"] == [passkey.id] and begun["registered"] is False
    shown = shown_hash(begun["tree"])
    text = approval_text(text_session or session, text_eid or eid, begun["digest"], begun["nonce"], True, SEEN, shown)
    body = {"session": session, "request": eid, "approve": True, "nonce": begun["nonce"], "seen": SEEN,
            "tree_hash": shown, "public_key": device.spki, "signature": "",
            "passkey": passkey.get(approval_challenge(text), origin, RP_ID)}
    return await http.post("/embedded/approve", json=body), body


async def test_a_passkey_added_signs_in_a_fresh_browser_and_approves(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    caplog.set_level(logging.INFO)
    origin = engine.http_url.rstrip("/")
    passkey = SoftAuthenticator(top_origin=TEST_ORIGIN)
    email = "pia@example.com"
    async with engine.client() as first, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        visitor = DeviceKey()
        address = await sign_in(first, http, mail, email, visitor)
        # a browser that may not approve for the account adds no passkey (the host's server can
        # learn the session id, not a registered key)
        stranger = await add_passkey(http, first.session, DeviceKey(), SoftAuthenticator(), origin)
        assert stranger.status_code == 403
        script_parses((await http.get(f"/embedded/passkey?session={first.session}")).text, tmp_path)
        added = await add_passkey(http, first.session, visitor, passkey, origin)
        assert added.status_code == 200 and added.json()["id"] == passkey.id

    async with engine.client() as fresh, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        own = frame_headers(origin)
        await fresh.join(opts={"networks": ["eip155:1"]})
        await fresh.intent("host", "open", {})
        await fresh.intent("connect/email", "submit", {"value": email})
        await fresh.recv_until(lambda f: "/embedded/signin?" in str(f))
        frame = await http.get(f"/embedded/signin?session={fresh.session}")
        assert "Sign in with a passkey" in frame.text
        script_parses(frame.text, tmp_path)
        begun = (await http.post("/embedded/passkey/begin", json={"session": fresh.session, "purpose": "signin"},
                                 headers=own)).json()
        challenge = unb64(begun["challenge"])
        # a sign-in challenge of another session, or an answer made for another origin: refused
        browser = DeviceKey()  # the fresh profile's frame key, registered with the sign-in
        key = {"public_key": browser.spki, "signature": browser.sign(signin_text(fresh.session, challenge))}
        other = await http.post("/embedded/passkey/signin", headers=own, json={
            "session": "someone-else", "credential": passkey.get(challenge, origin, RP_ID), **key})
        assert other.status_code == 404
        elsewhere = await http.post("/embedded/passkey/signin", headers=own, json={
            "session": fresh.session, "credential": passkey.get(challenge, "https://dapp.example", RP_ID), **key})
        assert elsewhere.json() == {"error": PasskeyRefused.ORIGIN.value}
        answer = passkey.get(challenge, origin, RP_ID)
        unsigned = await http.post("/embedded/passkey/signin", headers=own, json={
            "session": fresh.session, "credential": answer, **key, "public_key": DeviceKey().spki})
        assert unsigned.status_code == 403  # a key the poster does not hold is not registered
        signed_in = await http.post("/embedded/passkey/signin", headers=own,
                                    json={"session": fresh.session, "credential": answer, **key})
        assert signed_in.json() == {"ok": True}
        frames = await fresh.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                        and f["data"].get("isConnected") is True)
        assert [f["data"]["address"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"
                and f["data"].get("isConnected")][-1] == address

        src, eid = await ask(fresh, "1", "personal_sign", ["0x" + b"pay me".hex(), address])
        script_parses((await http.get(src)).text, tmp_path)
        begun = (await http.post("/embedded/approve/begin", json={"session": fresh.session, "request": eid,
                                                                  "public_key": browser.spki})).json()
        assert begun["registered"] is True  # the key the passkey sign-in registered
        # item 4: an assertion over another session's or another request's text, or replayed
        for text_session, text_eid in ((first.session, None), (None, "e999")):
            refused, _ = await approve_with_passkey(http, fresh.session, eid, passkey, origin, text_session, text_eid)
            assert refused.status_code == 403 and refused.json() == {"error": PasskeyRefused.CHALLENGE.value}
        assert not _rpc_answers(await fresh.quiet(0.3))
        approved, body = await approve_with_passkey(http, fresh.session, eid, passkey, origin)
        assert approved.status_code == 200
        frames = await fresh.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
        result = _rpc_answers(frames)[-1]
        assert Account.recover_message(encode_defunct(hexstr="0x" + b"pay me".hex()), signature=result["result"]) \
            == address
        _, second = await ask(fresh, "2", "personal_sign", ["0x02", address])
        replayed = await http.post("/embedded/approve", json={**body, "request": second})
        assert replayed.status_code == 403
        assert not _rpc_answers(await fresh.quiet(0.3))
    assert "Traceback" not in caplog.text
