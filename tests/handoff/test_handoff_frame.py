"""The linked phone's approval frame over HTTP, against a real engine (issue 44 item 1): what the
phone's modal shows in ApproveTransaction (server/handoff_frame.py). It is framed only by the
engine's own origin, shown only for the request waiting for a linked phone, and its Approve
(naming the session, not the link) counts only with the linked phone's key; every refusal is
typed and changes nothing."""

from __future__ import annotations

import logging

import httpx
import pytest

from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer

from ..embedded.device import DeviceKey, frame_headers
from ..embedded.test_approval_credential import _rpc_answers, engine, mail
from .test_handoff_routes import _approval, _approved_by_the_phone, _part, _signed_in_and_linked, _status

__all__ = ["engine", "mail"]


async def test_rule_the_phones_approval_frame_approves_only_with_the_linked_key(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        phone, attacker = DeviceKey(), DeviceKey()
        address, link = await _signed_in_and_linked(client, http, mail, "pia@example.com", phone)

        message = "0x" + b"in the phone's modal".hex()
        await client.intent("host", "rpc", {"id": "1", "method": "personal_sign", "params": [message, address]})
        await client.recv_until(lambda f: "Waiting for your phone" in str(f))
        assert "/continue-approve" not in str(client.frames), "the host page was sent the phone's frame"
        eid = (await _status(http, link, phone))["request"]
        assert isinstance(eid, str)

        # the frame: for the request waiting only, framed by the engine's own origin only
        page = await http.get("/continue-approve", params={"session": client.session, "request": eid})
        assert page.status_code == 200
        assert "frame-ancestors 'self';" in page.headers["content-security-policy"]
        assert "id=approve" in page.text and "id=reject" in page.text
        for params in ({"session": client.session, "request": "e-other"}, {"session": "no-such", "request": eid}, {}):
            assert (await http.get("/continue-approve", params=params)).status_code == 404

        # its begin and approve name the session; only the linked key gets a challenge, approves
        body = {"session": client.session, "public_key": phone.spki, "request": eid}
        assert (await http.post("/continue/begin", json={**body, "public_key": attacker.spki})).status_code == 404
        assert (await http.post("/continue/begin", json={**body, "link": _part(link)})).status_code == 400
        answer, text = await _approval(http, client.session, eid, body)
        bad = [await http.post("/continue/approve", json={**answer, "public_key": attacker.spki,
                                                          "signature": attacker.sign(text)},
                               headers=frame_headers(engine.http_url)),
               await http.post("/continue/approve", json={**answer, "signature": phone.sign(text)},
                               headers={"Origin": "https://host.example", "Sec-Fetch-Site": "cross-site"})]
        assert [r.status_code for r in bad] == [404, 403]
        assert not _rpc_answers(await client.quiet(0.3)), "a refused approval answered the host"
        await _approved_by_the_phone(client, http, answer, phone, text, message, address)
        # answered: the frame is gone
        assert (await http.get("/continue-approve", params={"session": client.session, "request": eid})).status_code == 404
    assert "Traceback" not in caplog.text
