"""Signing in with a passkey from Connect, through the engine's routes (issue 43 §3, §4;
server/passkey.py): no email typed; the engine finds the account from the assertion's credential
id (its user handle must agree), checks it over a sign-in challenge bound to this session with
the visitor verified, registers the frame's key as a code does, and the session is signed in as
after an accepted code (one account event). Each refusal is typed, changes nothing (no account
event, nothing spent: the visitor's own answer counts afterwards) and logs no traceback: an
unknown credential, an answer for another session's challenge, another origin or relying party,
no user verification, a user handle of another account, a replayed answer and a clone."""

from __future__ import annotations

import copy
import logging
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore.embedded.passkeys import PasskeyRefused
from modalcore.server.passkey import signin_text
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, Client, RunningServer
from modalcore_testing.passkey import SoftAuthenticator

from .device import DeviceKey, frame_headers
from .test_approval_credential import ask, engine, mail, sign_in  # noqa: F401 (fixtures)
from .test_passkey_routes import RP_ID, add_passkey, script_parses, unb64

PASSKEY_SRC = re.compile(r"/embedded/passkey/signin\?session=[\w-]+")


def accounts(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"]


async def on_connect(client: Client) -> str:
    """A fresh visitor opens the modal: Connect, nothing typed; the passkey frame's URL."""
    await client.join(opts={"networks": ["eip155:1"]})
    await client.intent("host", "open", {})
    await client.quiet(0.2)
    found = PASSKEY_SRC.search(str(client.frames))  # in the tree the modal opens to
    assert found is not None
    return found.group(0)


class Visitor:
    """The Connect frame's script: begin, the passkey's answer, the frame's key signs."""

    def __init__(self, http: httpx.AsyncClient, client: Client, origin: str) -> None:
        self.http, self.client, self.origin = http, client, origin
        self.device = DeviceKey()

    async def challenge(self, session: str | None = None) -> bytes:
        begun = await self.http.post("/embedded/passkey/begin", headers=frame_headers(self.origin),
                                      json={"session": session or self.client.session, "purpose": "signin"})
        assert begun.status_code == 200, begun.text
        return unb64(begun.json()["challenge"])

    async def post(self, challenge: bytes, credential: dict[str, Any]) -> httpx.Response:
        session = self.client.session
        return await self.http.post("/embedded/passkey/signin", headers=frame_headers(self.origin), json={
            "session": session, "credential": credential, "public_key": self.device.spki,
            "signature": self.device.sign(signin_text(session, challenge))})


async def test_a_passkey_signs_in_from_connect_with_no_email_and_every_wrong_answer_is_refused(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    caplog.set_level(logging.INFO)
    origin = engine.http_url.rstrip("/")
    passkey = SoftAuthenticator(top_origin=TEST_ORIGIN)
    email = "noor@example.com"
    async with engine.client() as first, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        visitor = DeviceKey()
        address = await sign_in(first, http, mail, email, visitor)
        assert (await add_passkey(http, first.session, visitor, passkey, origin)).status_code == 200
        # the user id given to the authenticator is the identity's opaque handle, the same each time
        begun = (await http.post("/embedded/passkey/begin", json={"session": first.session, "purpose": "register"},
                                 headers=frame_headers(origin))).json()
        assert unb64(begun["user_id"]) == passkey.user_handle and email not in begun["user_id"]
        # another account with a passkey of its own (its user handle names it)
    async with engine.client() as other, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        other_device = DeviceKey()
        await sign_in(other, http, mail, "omar@example.com", other_device)
        others = SoftAuthenticator(top_origin=TEST_ORIGIN)
        assert (await add_passkey(http, other.session, other_device, others, origin)).status_code == 200

    async with engine.client() as fresh, engine.client() as elsewhere, \
            httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        src = await on_connect(fresh)
        assert fresh.session in src
        frame = await http.get(src)
        assert frame.status_code == 200 and "Sign in with a passkey" in frame.text
        script_parses(frame.text, tmp_path)
        me = Visitor(http, fresh, origin)
        clone = copy.deepcopy(passkey)  # the credential copied before it signs in, with its counter
        challenge = await me.challenge()

        async def refused(credential: dict[str, Any], why: PasskeyRefused, challenge: bytes = challenge) -> None:
            answer = await me.post(challenge, credential)
            assert answer.status_code == 403 and answer.json() == {"error": why.value}, answer.text
            assert not accounts(await fresh.quiet(0.2))

        # an unknown credential
        await refused(SoftAuthenticator(top_origin=TEST_ORIGIN).get(challenge, origin, RP_ID), PasskeyRefused.UNKNOWN)
        # an answer over another session's sign-in challenge
        await on_connect(elsewhere)
        theirs = await me.challenge(elsewhere.session)
        await refused(passkey.get(theirs, origin, RP_ID), PasskeyRefused.CHALLENGE, theirs)
        # made for another origin, or another relying party
        await refused(passkey.get(challenge, "https://dapp.example", RP_ID), PasskeyRefused.ORIGIN)
        await refused(passkey.get(challenge, origin, "dapp.example"), PasskeyRefused.ORIGIN)
        # the visitor not verified
        passkey.user_verified = False
        await refused(passkey.get(challenge, origin, RP_ID), PasskeyRefused.USER_NOT_VERIFIED)
        passkey.user_verified = True
        # a user handle that names another account than the credential's
        handle = passkey.user_handle
        passkey.user_handle = others.user_handle
        await refused(passkey.get(challenge, origin, RP_ID), PasskeyRefused.UNKNOWN)
        passkey.user_handle = handle
        # a key the poster does not hold is not registered
        answer = passkey.get(challenge, origin, RP_ID)
        unsigned = await http.post("/embedded/passkey/signin", headers=frame_headers(origin), json={
            "session": fresh.session, "credential": answer, "public_key": DeviceKey().spki,
            "signature": me.device.sign(signin_text(fresh.session, challenge))})
        assert unsigned.status_code == 403 and not accounts(await fresh.quiet(0.2))

        # nothing was spent: the visitor's own answer signs in, to the account the passkey names
        signed_in = await me.post(challenge, answer)
        assert signed_in.json() == {"ok": True}
        frames = await fresh.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                        and f["data"].get("isConnected") is True)
        connected = [a for a in accounts(frames + await fresh.quiet(0.3)) if a.get("isConnected")]
        assert len(connected) == 1 and connected[0]["address"] == address
        # the frame's key was registered with it: it may approve for the account
        _, eid = await ask(fresh, "1", "personal_sign", ["0x" + b"hello".hex(), address])
        begun = (await http.post("/embedded/approve/begin", json={"session": fresh.session, "request": eid,
                                                                  "public_key": me.device.spki})).json()
        assert begun["registered"] is True

        # replayed: signed out, back on Connect, the same answer again
        await fresh.intent("host", "disconnect", {})
        await fresh.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                               and f["data"].get("isConnected") is False)
        await on_connect_again(fresh)
        await refused(answer, PasskeyRefused.REPLAYED)
        # the clone, its counter behind the credential's: refused, even over a new challenge
        fresh_challenge = await me.challenge()
        await refused(clone.get(fresh_challenge, origin, RP_ID), PasskeyRefused.REPLAYED, fresh_challenge)
        # the passkey itself still signs in
        assert (await me.post(fresh_challenge, passkey.get(fresh_challenge, origin, RP_ID))).json() == {"ok": True}
    assert "Traceback" not in caplog.text


async def on_connect_again(client: Client) -> None:
    await client.intent("host", "open", {})
    await client.quiet(0.2)


async def test_the_frames_button_speaks_the_modals_language_and_loads_before_opening(engine: RunningServer) -> None:
    """The button the visitor reads is inside the frame: in the language the modal draws. The
    page is served while the modal is still closed (Connect is drawn ready to open)."""
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        await client.join(opts={"networks": ["eip155:1"], "locale": "de"})
        await client.quiet(0.2)
        found = PASSKEY_SRC.search(str(client.frames))
        assert found is not None
        assert ">Mit einem Passkey anmelden</button>" in (await http.get(found.group(0))).text
