"""A phone linked with no account signs in by email inside its own modal, on a real engine
(docs/features/continue-on-phone.md, "With no account"): the sign-in frame may be framed by the
engine's own page (the phone's), the code typed there registers the phone's linked key (the frame
keeps its key where the phone's page does), the host page gets one account event, and the phone
stays linked for that account: its page still gets a companion nonce by its link."""

from __future__ import annotations

from typing import Any

import httpx

from modalcore.server.companion import signed_text
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import Client, RunningServer

from ..embedded.device import DeviceKey, frame_headers, registration
from ..embedded.test_approval_credential import code_for, engine, mail
from .test_companion_routes import _companion_url, _nonce
from .test_handoff_routes import _linked_with_no_account

__all__ = ["engine", "mail"]

OPTS = {"networks": ["eip155:1"], "features": {"continueOnPhone": True}}
EMAIL = "zoe@example.com"


def _accounts(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"]


async def test_rule_an_email_sign_in_in_the_phones_modal_registers_the_phones_key_and_keeps_the_link(
        engine: RunningServer, mail: LocalSmtpServer) -> None:
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        phone_key, link = await _linked_with_no_account(client, http, OPTS)
        given = (await _nonce(http, link, phone_key, frame_headers(engine.http_url))).json()
        session, nonce = given["session"], given["nonce"]
        async with Client.open(_companion_url(engine), origin=engine.http_url) as phone:
            await phone.join(companion={"session": session, "public_key": phone_key.spki, "nonce": nonce,
                                        "signature": phone_key.sign(signed_text(session, nonce))},
                             env={"mobile": True, "platform": "ios", "width": 390}, opts={}, wallets=[])
            await phone.intent("connect/email", "submit", {"value": EMAIL})
            await phone.recv_until(lambda f: "/embedded/signin?" in str(f), timeout=10)

            # the sign-in frame inside the phone's modal: the engine's own page may frame it
            page = await http.get(f"/embedded/signin?session={session}")
            assert page.status_code == 200
            ancestors = page.headers["content-security-policy"].split(";")[0]
            assert ancestors.startswith("frame-ancestors ") and "'self'" in ancestors.split()

            # the code typed there, signed by the frame's key: the phone's linked key
            before = len(_accounts(client.frames))
            answer = await http.post("/embedded/signin", json=registration(session, code_for(mail, EMAIL, 1), phone_key),
                                     headers=frame_headers(engine.http_url))
            assert answer.json() == {"verdict": "accepted"}
            got = await client.recv_until(lambda f: any(a.get("isConnected") for a in _accounts([f])), timeout=10)
            connected = [a for a in _accounts(client.frames[before:]) if a.get("isConnected")]
            assert len(connected) == 1 and connected[0]["walletInfo"]["type"] != "WALLET_CONNECT", got[-1]

            # the phone stays linked, now for the account: its page gets a nonce by its link
            again = await _nonce(http, link, phone_key, frame_headers(engine.http_url))
            assert again.status_code == 200, again.text
            other = await _nonce(http, link, DeviceKey(), frame_headers(engine.http_url))
            assert (other.status_code, other.json()["error"]) == (403, "not_linked")
