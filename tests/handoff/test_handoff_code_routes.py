"""Continue on your computer over HTTP, against a real engine (issue 44 item 1, phone to computer):
the session is a phone's (`env.mobile`) signed in with the embedded wallet; the computer types
the code at `/continue`, gets the link, claims it with its own key; the phone's confirmation
frame links it; the computer then gets its companion nonce.

Rules: a typed code is bounded and read once into the link (a second use is `used_link`); a
wrong one is refused typed (`wrong_code`) and routes nothing to any session; an address refused
5 times in 10 minutes is answered `too_many_attempts` before its code is read, even for the
right code; only the engine's own page may ask; nothing logs a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from modalcore.server.handoff_code import FAILURES
from modalcore.slices.handoff import LINK_TTL_MS, link_digest
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import Client, RunningServer

from ..embedded.device import DeviceKey, frame_headers
from ..embedded.test_approval_credential import CLOCK, engine, mail
from .test_handoff_routes import _claim, _confirm, _sign_in_joined, _status, clock

__all__ = ["clock", "engine", "mail"]

PHONE_ENV = {"platform": "ios", "timezone": "UTC", "width": 390, "mobile": True}
OPTS = {"networks": ["eip155:1"], "features": {"continueOnPhone": True}}


async def _typed_code(client: Client) -> str:
    """On the phone: Continue on your computer → the code the screen shows."""
    await client.intent("host", "open", {})
    await client.intent("footer/continue-on-phone", "press", {})
    frames = await client.recv_until(lambda f: "handoff/typed" in str(f) and "Preparing the code" not in str(f))
    texts = [n.get("p", {}).get("text") for n in _nodes(frames) if n.get("id") == "handoff/typed"]
    code = [t for t in texts if isinstance(t, str)][-1]
    assert len(code) == 9 and code[4] == "-", code
    return code


def _nodes(value: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        if "id" in value:
            found.append(value)
        for item in value.values():
            found += _nodes(item)
    elif isinstance(value, list):
        for item in value:
            found += _nodes(item)
    return found


async def _code(http: httpx.AsyncClient, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return await http.post("/continue/code", json={"code": code},
                           headers=frame_headers(str(http.base_url)) if headers is None else headers)


async def test_rule_the_computer_types_the_code_the_phone_confirms_and_a_second_use_is_refused(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        phone, computer, third = DeviceKey(), DeviceKey(), DeviceKey()
        await client.join(env=PHONE_ENV, opts=OPTS)
        await _sign_in_joined(client, http, mail, "noa@example.com", phone)
        code = await _typed_code(client)
        page = await http.get("/continue")
        assert page.status_code == 200 and "id=code" in page.text and client.session not in page.text

        # refused: from another site, a wrong code, a malformed one; nothing reaches the phone
        cross = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
        refused = [await _code(http, code, cross), await _code(http, "ZZZZ-ZZZZ"), await _code(http, "x" * 40)]
        assert [(r.status_code, r.json()["error"]) for r in refused] == [
            (403, "foreign_origin"), (403, "wrong_code"), (403, "wrong_code")]
        assert "Does your computer show this code?" not in str(await client.quiet(0.3))

        # the right code (as typed: lower case, no dash) gives the link; the computer claims it
        found = await _code(http, code.lower().replace("-", " "))
        assert found.status_code == 200, found.text
        link = f"{engine.http_url}/continue/{found.json()['link']}"
        assert link.startswith(f"{engine.http_url}/continue/{client.session}.")
        assert (await _claim(http, link, computer)).status_code == 202
        await client.recv_until(lambda f: "Does your computer show this code?" in str(f))

        # a second use of the code, and the leaked link in a third browser: refused
        again = await _code(http, code)
        assert (again.status_code, again.json()["error"]) == (410, "used_link")
        leaked = await _claim(http, link, third)
        assert (leaked.status_code, leaked.json()["error"]) == (410, "used_link")

        # the phone's frame confirms with the phone's registered key: the computer is linked
        digest = link_digest(client.session, link.rsplit(".", 1)[1])
        yes = await _confirm(http, client.session, digest, computer, phone, frame_headers(engine.http_url))
        assert yes.status_code == 200, yes.text
        await client.recv_until(lambda f: "Your computer is connected" in str(f))
        assert (await _status(http, link, computer)) == {"state": "linked", "request": None}
        part = link.rsplit("/continue/", 1)[1]
        nonce = await http.post("/continue/companion", json={"link": part, "public_key": computer.spki},
                                headers=frame_headers(engine.http_url))
        assert nonce.status_code == 200 and nonce.json()["session"] == client.session
        stranger = await http.post("/continue/companion", json={"link": part, "public_key": third.spki},
                                   headers=frame_headers(engine.http_url))
        assert (stranger.status_code, stranger.json()["error"]) == (403, "not_linked")
    assert "Traceback" not in caplog.text
    assert "wrong_code" in caplog.text


async def test_rule_an_address_refused_5_times_is_held_back_even_with_the_right_code(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    # its own loopback address: the table is the engine process's, the other tests' address stays free
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.9")
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http, \
            httpx.AsyncClient(base_url=engine.http_url, timeout=10, transport=transport) as guesser:
        await client.join(env=PHONE_ENV, opts=OPTS)
        await _sign_in_joined(client, http, mail, "lio@example.com", DeviceKey())
        code = await _typed_code(client)
        wrong = [(await _code(guesser, f"{n:04d}-0000")).json()["error"] for n in range(FAILURES)]
        assert wrong == ["wrong_code"] * FAILURES
        held = await _code(guesser, code)
        assert (held.status_code, held.json()["error"]) == (429, "too_many_attempts")
        assert (await _code(http, code)).status_code == 200, "another address held back"
    assert "Traceback" not in caplog.text


async def test_rule_the_code_page_and_its_refusals_are_in_the_browsers_language(
        engine: RunningServer, caplog: pytest.LogCaptureFixture) -> None:
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.10")  # its refusal counted on its own address
    async with httpx.AsyncClient(base_url=engine.http_url, timeout=10, transport=transport,
                                 headers={"Accept-Language": "de-DE,de;q=0.9"}) as http:
        page = await http.get("/continue")
        assert "lang=de" in page.text and "Auf dem Computer fortfahren" in page.text
        assert "Gib den Code ein, den dein Handy zeigt" in page.text
        wrong = await _code(http, "ZZZZ-ZZZZ")
        assert wrong.json() == {"error": "wrong_code", "text": "Dieser Code ist ungültig."}
    assert "Traceback" not in caplog.text


async def test_rule_a_code_typed_after_2_minutes_is_refused_expired_and_its_link_says_make_one_on_the_phone(
        engine: RunningServer, mail: LocalSmtpServer, clock: None, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.11")  # the shifted clock's refusal on its own address
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http, \
            httpx.AsyncClient(base_url=engine.http_url, timeout=10, transport=transport) as late:
        await client.join(env=PHONE_ENV, opts=OPTS)
        await _sign_in_joined(client, http, mail, "ada@example.com", DeviceKey())
        code = await _typed_code(client)
        link = (await _code(late, code)).json()["link"]
        CLOCK.shift_ms += LINK_TTL_MS
        expired = await _code(late, code)
        assert (expired.status_code, expired.json()["error"]) == (410, "expired_link")
        page = await late.get(f"/continue/{link}")
        assert page.status_code == 410 and "Make a new one on your phone." in page.text
        assert "Does your computer show this code?" not in str(await client.quiet(0.3))
    assert "Traceback" not in caplog.text
