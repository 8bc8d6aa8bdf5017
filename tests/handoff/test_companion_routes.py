"""The linked phone joins the session as its companion, against a real engine (issue 44 item 1,
part 3; PROTOCOL.md "Companion"), played as the computer, the phone and the attacker.

Rules: the nonce is given only to the linked phone's page (engine origin); the join is refused,
typed (`foreign_origin`, `unknown_link`, `not_linked`), closed 4006, for another origin, a made-up
session or nonce, another key or a bad signature, and a refusal changes nothing the computer
sees; the linked phone's socket gets its own numbering and the session's tree, a press on either
screen moves both, host events stay on the computer; no traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from modalcore.rules.limits import COMPANION_NONCE_MS
from modalcore.server.companion import signed_text
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, Client, RunningServer, find_node
from modalcore.wire.diff import apply

from ..embedded.device import DeviceKey, frame_headers
from ..embedded.test_approval_credential import CLOCK, engine, mail
from .test_handoff_routes import _part, _signed_in_and_linked, clock

__all__ = ["clock", "engine", "mail"]


def _companion_url(engine: RunningServer) -> str:
    return f"ws://127.0.0.1:{engine.port}/ws/companion?project={TEST_PROJECT}"


async def _join(engine: RunningServer, session: str, key: DeviceKey, nonce: str, *, origin: str | None = None,
                signature: str | None = None) -> tuple[list[dict[str, Any]], int | None]:
    """A companion join: the frames up to `joined` or the refusal, and the close code if refused."""
    async with Client.open(_companion_url(engine), origin=origin or engine.http_url) as phone:
        sig = signature if signature is not None else key.sign(signed_text(session, nonce))
        frames = await phone.join(companion={"session": session, "public_key": key.spki, "nonce": nonce,
                                             "signature": sig},
                                  env={"mobile": True, "platform": "ios", "width": 390}, opts={}, wallets=[])
        if frames[-1]["t"] == "joined" or frames[-1]["t"] == "snapshot":
            return frames, None
        return frames, await phone.closed()


async def _linked(client: Client, http: httpx.AsyncClient, mail: LocalSmtpServer, phone: DeviceKey) -> str:
    """The computer signed in, its phone `phone` linked; the link."""
    _, link = await _signed_in_and_linked(client, http, mail, "noa@example.com", phone)
    return link


async def _nonce(http: httpx.AsyncClient, link: str, key: DeviceKey, headers: dict[str, str]) -> httpx.Response:
    return await http.post("/continue/companion", json={"link": _part(link), "public_key": key.spki}, headers=headers)


class Tree:
    """A page's tree from its snapshot and patches."""

    def __init__(self) -> None:
        self.wire: dict[str, Any] | None = None

    def take(self, frames: list[dict[str, Any]]) -> None:
        for frame in frames:
            if frame["t"] == "snapshot":
                self.wire = frame["tree"]
            elif frame["t"] == "patch":
                assert self.wire is not None
                self.wire = apply(self.wire, frame["ops"])

    async def follow(self, socket: Client, done: Callable[[], bool], timeout: float = 10.0) -> None:
        """Take `socket`'s frames a patch at a time until `done()`. Every screen of a session is
        sent every render's patch, so a screen behind another passes through the other's tree:
        comparing after each patch does not depend on which socket the engine wrote first."""
        while not done():
            try:
                self.take(await socket.recv_until(lambda f: f["t"] in ("patch", "snapshot"), timeout))
            except TimeoutError:
                last = [(f["t"], f.get("status"), f.get("kind"), f.get("data"), f.get("iid"), str(f.get("ops"))[:300])
                        for f in socket.frames[-5:]]
                raise AssertionError(f"not reached within {timeout:.0f} s: view {(self.wire or {}).get('p', {}).get('view')}, "
                                     f"last frames {last}; the tree: {self.wire}") from None


async def test_only_the_linked_phone_joins_as_companion_and_a_press_on_either_screen_moves_both(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        phone, attacker = DeviceKey(), DeviceKey()
        link = await _linked(client, http, mail, phone)
        session = client.session

        # the nonce: only for the linked phone's key, only from a page of the engine's origin
        cross = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
        no = [await _nonce(http, link, phone, cross), await _nonce(http, link, attacker, frame_headers(engine.http_url)),
              await _nonce(http, f"{link}x", phone, frame_headers(engine.http_url))]
        assert [(r.status_code, r.json()["error"]) for r in no] == [
            (403, "foreign_origin"), (403, "not_linked"), (404, "unknown_link")]
        given = await _nonce(http, link, phone, frame_headers(engine.http_url))
        assert given.status_code == 200 and given.json()["session"] == session
        nonce = given.json()["nonce"]
        await client.quiet(0.2)
        seen = len(client.frames)

        # refused joins: typed, closed 4006, nothing reaches the computer
        refused = [
            await _join(engine, session, phone, nonce, origin=TEST_ORIGIN),  # the host page's origin
            await _join(engine, "no-such-session", phone, nonce),
            await _join(engine, session, phone, nonce[:-2] + "00"),  # not the engine's nonce
            await _join(engine, session, attacker, nonce),  # a key the computer never confirmed
            await _join(engine, session, phone, nonce, signature=phone.sign(b"something else")),
        ]
        assert [(frames[-1]["t"], frames[-1]["code"], code) for frames, code in refused] == [
            ("error", "foreign_origin", 4006), ("error", "unknown_link", 4006), ("error", "unknown_link", 4006),
            ("error", "not_linked", 4006), ("error", "not_linked", 4006)]
        assert not await client.quiet(0.3), "a refused companion join reached the computer"
        assert len(client.frames) == seen

        # the linked phone joins: its own numbering, the session's tree
        async with Client.open(_companion_url(engine), origin=engine.http_url) as mobile:
            frames = await mobile.join(companion={"session": session, "public_key": phone.spki, "nonce": nonce,
                                                  "signature": phone.sign(signed_text(session, nonce))},
                                       env={"mobile": True, "platform": "ios", "width": 390}, opts={}, wallets=[])
            assert [f["t"] for f in frames[:3]] == ["joined", "theme", "snapshot"]
            assert frames[0]["resume"] == "" and frames[0]["session"] == session
            assert [f["s"] for f in frames[1:3]] == [1, 2]
            on_phone = Tree()
            on_phone.take(frames)
            assert on_phone.wire is not None and on_phone.wire["p"]["view"] == "Account"

            # a press on the phone moves the computer's screen
            await mobile.intent("account/feature/receive", "press", {})
            moved = await client.recv_until(lambda f: f["t"] == "patch" and "view/Account" in str(f))
            view = [op[2]["view"] for f in moved if f["t"] == "patch" for op in f["ops"]
                    if op[0] == 3 and op[1] == "modal" and "view" in op[2]][-1]
            assert view != "Account"
            on_phone.take(await mobile.recv_until(lambda f: f["t"] == "patch"))
            assert on_phone.wire["p"]["view"] == view
            # a press on the computer moves the phone's
            await client.intent("header/back", "press", {})
            on_phone.take(await mobile.recv_until(lambda f: f["t"] == "patch"))
            assert on_phone.wire["p"]["view"] == "Account"
            # host events are the host page's only
            await mobile.intent("header/close", "press", {})
            await client.recv_until(lambda f: f["t"] == "host_event" and f["kind"] == "state"
                                    and f["data"].get("open") is False)
            await mobile.quiet(0.3)
            assert not [f for f in mobile.frames if f["t"] == "host_event"]

            # the computer's account goes (disconnect): the phone is no longer linked, its
            # companion socket is told and closed, before anything more is sent to it
            await client.intent("host", "disconnect", {})
            told = await mobile.recv_until(lambda f: f["t"] == "error")
            assert told[-1]["code"] == "not_linked"
            assert await mobile.closed() == 4006
    assert "Traceback" not in caplog.text


async def test_a_companion_nonce_joins_once_and_within_its_minute(
        engine: RunningServer, mail: LocalSmtpServer, clock: None, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 44 part 3: a captured (nonce, signature) replayed is refused `unknown_link`, closed
    4006, the phone's companion socket left as it was and nothing sent to the computer; a nonce
    not joined with within COMPANION_NONCE_MS is refused the same way."""
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        phone = DeviceKey()
        link = await _linked(client, http, mail, phone)
        session = client.session
        nonce = (await _nonce(http, link, phone, frame_headers(engine.http_url))).json()["nonce"]
        signature = phone.sign(signed_text(session, nonce))
        async with Client.open(_companion_url(engine), origin=engine.http_url) as mobile:
            frames = await mobile.join(companion={"session": session, "public_key": phone.spki, "nonce": nonce,
                                                  "signature": signature},
                                       env={"mobile": True, "platform": "ios", "width": 390}, opts={}, wallets=[])
            assert frames[0]["t"] == "joined"
            await mobile.quiet(0.2)
            await client.quiet(0.2)
            seen = len(client.frames)
            replayed, code = await _join(engine, session, phone, nonce, signature=signature)
            assert (replayed[-1]["t"], replayed[-1]["code"], code) == ("error", "unknown_link", 4006)
            # the first companion is still the session's (a replay replaced nothing)
            assert not await client.quiet(0.3), "a replayed join reached the computer"
            assert len(client.frames) == seen
            await mobile.intent("account/feature/receive", "press", {})
            await client.recv_until(lambda f: f["t"] == "patch")
            assert not [f for f in mobile.frames if f["t"] == "error"]

        # a nonce not joined with within its minute
        late = (await _nonce(http, link, phone, frame_headers(engine.http_url))).json()["nonce"]
        CLOCK.shift_ms += COMPANION_NONCE_MS
        frames, code = await _join(engine, session, phone, late)
        assert (frames[-1]["t"], frames[-1]["code"], code) == ("error", "unknown_link", 4006)
    assert "Traceback" not in caplog.text
