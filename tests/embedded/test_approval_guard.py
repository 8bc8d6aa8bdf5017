"""Issue 38 §2-§3 on the engine's side: an Approve counts only with what the frame saw signed
with it (shown long enough, by the session's own site), and the frame page names the session's
origin only to the page that really shows it.

The attacker is the host's server (a forged websocket `Origin`, any header, any body); the
visitor's browser is played by a `DeviceKey` registered by the code typed inside the frame.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.approval_tree import shown_hash
from modalcore.server.approval import approval_text
from modalcore.server.approval_guard import (
    MIN_SHOWN_MS,
    Seen,
    SeenRefused,
    parse_seen,
    referer_origin,
    refusal,
)
from modalcore_testing import TEST_ORIGIN, RunningServer

from .device import SEEN, DeviceKey
from .test_approval_credential import SEND, _rpc_answers, ask, engine, mail, sign_in  # noqa: F401 (fixtures)

ATTACKER = "https://attacker.example.net"


@pytest.mark.parametrize(("text", "why"), [
    (SEEN, None),
    (f"popup 0 {TEST_ORIGIN}", None),
    (f"visible {MIN_SHOWN_MS - 1} {TEST_ORIGIN}", SeenRefused.NOT_SHOWN),
    (f"visible 99999 {ATTACKER}", SeenRefused.ELSEWHERE),
    (f"visible 99999 {TEST_ORIGIN}:8443", SeenRefused.ELSEWHERE),
    (f"visible 99999 {TEST_ORIGIN.upper()}", None),  # hosts compare case-insensitively
    ("visible 99999 ", SeenRefused.MALFORMED),
    (f"hidden 99999 {TEST_ORIGIN}", SeenRefused.MALFORMED),
    (f"visible -1 {TEST_ORIGIN}", SeenRefused.MALFORMED),
    (f"visible 1e9 {TEST_ORIGIN}", SeenRefused.MALFORMED),
    ("", SeenRefused.MALFORMED),
    ("visible 600 " + "x" * 400, SeenRefused.MALFORMED),
    (f"visible 600 {TEST_ORIGIN} extra", SeenRefused.MALFORMED),
])
def test_what_the_frame_saw_decides_whether_approve_counts(text: str, why: SeenRefused | None) -> None:
    assert refusal(parse_seen(text), TEST_ORIGIN) == why


def test_the_evidence_reads_back() -> None:
    assert parse_seen(SEEN) == Seen("visible", MIN_SHOWN_MS, TEST_ORIGIN)
    assert parse_seen(123) is None
    assert referer_origin("https://app.example.com/some/page?x=1") == "https://app.example.com"
    assert referer_origin("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert referer_origin("") is None and referer_origin(None) is None and referer_origin("about:blank") is None


async def _approve_with(http: httpx.AsyncClient, session: str, eid: str, device: DeviceKey,
                        seen: str | None) -> httpx.Response:
    begun = (await http.post("/embedded/approve/begin", json={"session": session, "request": eid,
                                                              "public_key": device.spki})).json()
    text = approval_text(session, eid, begun["digest"], begun["nonce"], True, seen or "", shown_hash(begun["tree"]))
    body: dict[str, Any] = {"session": session, "request": eid, "approve": True, "nonce": begun["nonce"],
                            "tree_hash": shown_hash(begun["tree"]), "public_key": device.spki, "signature": device.sign(text)}
    if seen is not None:
        body["seen"] = seen
    return await http.post("/embedded/approve", json=body)


async def test_an_approve_without_the_frames_evidence_sends_nothing(
        engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    """The visitor's own key signs (the frame would): still refused unless the signed evidence
    says the frame was shown long enough, by the session's site. Nothing is sent until then."""
    caplog.set_level(logging.INFO)
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        visitor = DeviceKey()
        address = await sign_in(client, http, mail, "vic@example.com", visitor)
        _, eid = await ask(client, "1", "eth_sendTransaction", [{**SEND, "from": address}])
        refused = {
            "no evidence": await _approve_with(http, client.session, eid, visitor, None),
            "too short": await _approve_with(http, client.session, eid, visitor, f"visible 120 {TEST_ORIGIN}"),
            "another site": await _approve_with(http, client.session, eid, visitor, f"visible 900 {ATTACKER}"),
        }
        assert {k: (r.status_code, r.json()["error"]) for k, r in refused.items()} == {
            "no evidence": (403, SeenRefused.MALFORMED.value),
            "too short": (403, SeenRefused.NOT_SHOWN.value),
            "another site": (403, SeenRefused.ELSEWHERE.value)}
        # evidence in the body that the key did not sign (the signature is over other evidence)
        begun = (await http.post("/embedded/approve/begin", json={"session": client.session, "request": eid,
                                                                  "public_key": visitor.spki})).json()
        text = approval_text(client.session, eid, begun["digest"], begun["nonce"], True, f"visible 100 {TEST_ORIGIN}", shown_hash(begun["tree"]))
        swapped = await http.post("/embedded/approve", json={
            "session": client.session, "request": eid, "approve": True, "nonce": begun["nonce"], "seen": SEEN, "tree_hash": shown_hash(begun["tree"]),
            "public_key": visitor.spki, "signature": visitor.sign(text)})
        assert swapped.status_code == 403
        assert _rpc_answers(await client.quiet(0.3)) == []  # nothing answered: nothing sent
        assert (await _approve_with(http, client.session, eid, visitor, SEEN)).status_code == 200
    assert "Traceback" not in caplog.text


async def test_the_frame_page_names_the_session_origin_only_to_the_page_that_shows_it(
        engine: RunningServer, mail: LocalSmtpServer) -> None:  # noqa: F811
    """Issue 38 §3: the host's server joined claiming the real dApp's origin (TEST_ORIGIN); the
    visitor's browser loads the frame from the attacker's page: its `Referer` names that page, and
    the engine answers a refusal that names only the page the visitor is on. From the session's
    own site (or with no referrer: the frame then checks `location.ancestorOrigins` itself) the
    page is drawn; the origin line stays hidden until the frame's check passes."""
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        address = await sign_in(client, http, mail, "wes@example.com", DeviceKey())
        src, _ = await ask(client, "1", "personal_sign", ["0x6869", address])
        elsewhere = await http.get(src, headers={"Referer": ATTACKER + "/landing"})
        assert elsewhere.status_code == 403
        assert f"This window is shown on {ATTACKER}, not on the site that made this request" in elsewhere.text
        assert TEST_ORIGIN not in elsewhere.text and "Approve" not in elsewhere.text
        for headers in ({"Referer": TEST_ORIGIN + "/"}, {}):
            shown = await http.get(src, headers=headers)
            assert shown.status_code == 200 and "class=who id=who hidden>" in shown.text
            assert "trackVisibility: true" in shown.text and "ancestorOrigins" in shown.text
        # the popup (browsers without IntersectionObserver v2): opened by the engine-origin frame,
        # framed by nobody; from any other page, refused
        popup = await http.get(src + "&popup=1", headers={"Referer": engine.http_url + "/embedded/approve"})
        assert popup.status_code == 200
        assert "frame-ancestors 'none'" in popup.headers["content-security-policy"]
        assert (await http.get(src + "&popup=1", headers={"Referer": TEST_ORIGIN + "/"})).status_code == 403
