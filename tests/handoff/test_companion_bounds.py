"""The phone's `/ws/companion` sockets are counted in the per-address cap like a host page's
(issue 44, part 3 "Left"; server/addresses.py), against a real engine whose address cap is 2:
a companion join from a full address is refused `too_many_sessions` (4005) without spending
its nonce, a joined companion holds a place (a host page more is refused), the phone's next
socket takes over its first as a newer tab does, and a closed one stops counting."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from modalcore.server.companion import signed_text
from modalcore.server.endpoint import CLOSE_TOO_MANY_SESSIONS
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import Client, RunningServer

from ..embedded.mail_engine import mail_engine
from ..embedded.device import DeviceKey, frame_headers
from ..embedded.test_approval_credential import mail
from .test_companion_routes import _companion_url, _join, _linked, _nonce

__all__ = ["mail"]

CAP = 2
PHONE_ENV: dict[str, Any] = {"mobile": True, "platform": "ios", "width": 390}


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory, mail: LocalSmtpServer) -> Iterator[RunningServer]:
    with mail_engine(tmp_path_factory.mktemp("companion-cap"), mail, max_sessions_per_address=CAP) as running:
        yield running


def _companion(session: str, key: DeviceKey, nonce: str) -> dict[str, str]:
    return {"session": session, "public_key": key.spki, "nonce": nonce, "signature": key.sign(signed_text(session, nonce))}


async def test_rule_companion_sockets_count_toward_the_per_address_cap(
        capped: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    book = capped.hub.addresses
    async with capped.client() as client, httpx.AsyncClient(base_url=capped.http_url, timeout=10) as http:
        phone = DeviceKey()
        link = await _linked(client, http, mail, phone)
        session = client.session
        headers = frame_headers(capped.http_url)

        # the computer's socket and another host page: the address is full; the phone is refused
        nonce = (await _nonce(http, link, phone, headers)).json()["nonce"]
        async with capped.client() as other:
            assert (await other.join())[0]["t"] == "joined"
            assert book.live_sockets("127.0.0.1") == CAP
            await client.quiet(0.2)
            seen = len(client.frames)
            frames, code = await _join(capped, session, phone, nonce)
            assert (frames[-1]["t"], frames[-1]["code"], code) == ("error", "too_many_sessions", CLOSE_TOO_MANY_SESSIONS)
            assert not await client.quiet(0.3) and len(client.frames) == seen, "a refused join reached the computer"
        capped.wait_for(lambda: book.live_sockets("127.0.0.1") == 1)

        # that refusal did not spend the nonce: the phone joins with it, and its socket counts
        async with Client.open(_companion_url(capped), origin=capped.http_url) as mobile:
            frames = await mobile.join(companion=_companion(session, phone, nonce), env=PHONE_ENV, opts={}, wallets=[])
            assert frames[0]["t"] == "joined"
            assert book.live_sockets("127.0.0.1") == CAP
            async with capped.client() as third:
                frames = await third.join()
                assert (frames[0]["t"], frames[0]["code"]) == ("error", "too_many_sessions")
                assert await third.closed() == CLOSE_TOO_MANY_SESSIONS

            # the phone's next socket takes over its first (closed 4004), as a newer tab does
            again = (await _nonce(http, link, phone, headers)).json()["nonce"]
            async with Client.open(_companion_url(capped), origin=capped.http_url) as newer:
                frames = await newer.join(companion=_companion(session, phone, again), env=PHONE_ENV, opts={},
                                          wallets=[])
                assert frames[0]["t"] == "joined"
                assert await mobile.closed() == 4004
                capped.wait_for(lambda: book.live_sockets("127.0.0.1") == CAP)
        # the phone's sockets closed: they count no more
        capped.wait_for(lambda: book.live_sockets("127.0.0.1") == 1)
    assert "Traceback" not in caplog.text
