"""The linked phone's approval frame over HTTP, against a real engine (issue 44 item 1): what the
phone's modal shows in ApproveTransaction (server/handoff_frame.py). It is framed only by the
engine's own origin, shown only for the request waiting for a linked phone, and its Approve
(naming the session, not the link) counts only with the linked phone's key; every refusal is
typed and changes nothing."""

from __future__ import annotations

import logging

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.embedded.approval_tree import shown_hash
from modalcore.server.approval import approval_text
from modalcore.server.handoff import SEEN as PHONE_SEEN
from modalcore.slices.handoff import link_digest
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer

from ..embedded.device import DeviceKey, frame_headers
from ..embedded.test_approval_credential import _rpc_answers, engine, mail
from .test_handoff_routes import _claim, _confirm, _link, _part, _signed_in, _status

__all__ = ["engine", "mail"]


async def test_rule_the_phones_approval_frame_approves_only_with_the_linked_key(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        desktop, phone, attacker = DeviceKey(), DeviceKey(), DeviceKey()
        address = await _signed_in(client, http, mail, "pia@example.com", desktop)
        link = await _link(client)
        assert (await _claim(http, link, phone)).status_code == 202
        await client.recv_until(lambda f: "Does your phone show this code?" in str(f))
        digest = link_digest(client.session, _part(link).rsplit(".", 1)[1])
        assert (await _confirm(http, client.session, digest, phone, desktop, frame_headers(engine.http_url))).status_code == 200
        await client.recv_until(lambda f: "Your phone is connected" in str(f))

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
        begun = (await http.post("/continue/begin", json=body)).json()
        shown = shown_hash(begun["tree"])
        text = approval_text(client.session, eid, begun["digest"], begun["nonce"], True, PHONE_SEEN, shown)
        answer = {**body, "approve": True, "nonce": begun["nonce"], "tree_hash": shown}
        bad = [await http.post("/continue/approve", json={**answer, "public_key": attacker.spki,
                                                          "signature": attacker.sign(text)},
                               headers=frame_headers(engine.http_url)),
               await http.post("/continue/approve", json={**answer, "signature": phone.sign(text)},
                               headers={"Origin": "https://host.example", "Sec-Fetch-Site": "cross-site"})]
        assert [r.status_code for r in bad] == [404, 403]
        assert not _rpc_answers(await client.quiet(0.3)), "a refused approval answered the host"
        ok = await http.post("/continue/approve", json={**answer, "signature": phone.sign(text)},
                             headers=frame_headers(engine.http_url))
        assert ok.status_code == 200, ok.text
        frames = await client.recv_until(lambda f: bool(_rpc_answers([f])), timeout=10)
        result = _rpc_answers(frames)[-1]
        assert result["ok"] is True
        assert Account.recover_message(encode_defunct(hexstr=message), signature=result["result"]) == address
        # answered: the frame is gone
        assert (await http.get("/continue-approve", params={"session": client.session, "request": eid})).status_code == 404
    assert "Traceback" not in caplog.text
