"""Issue 38 §3 in Chromium: a forged websocket `Origin` does not make the approval frame name
the real dApp.

The attacker's server joins the project claiming a real dApp's origin (allowed for the project)
and drives the session: a visitor signed in by email, then a signature request. The visitor's
browser is on the attacker's page, on another origin of the same site (127.0.0.1, another
port), which frames the engine's approval page for that request. The frame sees where it
really is and refuses, naming only the page the visitor is on; nothing is signed: once with the
`Referer` the browser sends (the engine refuses before drawing the page), once with the referrer
stripped by the attacker (the frame's own `location.ancestorOrigins` check refuses).
"""

from __future__ import annotations

import asyncio
import queue
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from modalcore_dev.devmail import LocalSmtpServer
from modalcore.netports import free_port
from modalcore_testing import Client, RunningServer, serve_app

from ..embedded.device import DeviceKey, frame_headers, registration
from .conftest import TIMEOUT_MS
from .test_embedded_browser import code_for, embedded_dir, embedded_engine, smtp  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

REFUSED = "This window is shown on %s, not on the site that made this request. Nothing can be approved here."


class Attacker:
    """The attacker's server, in a thread of its own: a socket claiming `claimed` as its Origin,
    a visitor signed in by email (the code typed in the frame, played by `DeviceKey`), a
    `personal_sign` asked; `src` gets the approval frame's path; `done` ends it, and `answers`
    then holds what the session answered the host."""

    def __init__(self, engine: RunningServer, smtp: LocalSmtpServer, claimed: str,  # noqa: F811
                 email: str) -> None:
        self.engine, self.smtp, self.claimed, self.email = engine, smtp, claimed, email
        self.src: queue.Queue[str] = queue.Queue()
        self.done = threading.Event()
        self.answers: list[Any] = []
        self.session = ""
        self.failed: list[BaseException] = []
        self.thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as error:  # reported by the test, not lost in the thread
            self.failed.append(error)
            self.src.put("")

    async def _run(self) -> None:
        email = self.email
        async with Client.open(self.engine.ws_url("demo"), origin=self.claimed, project="demo") as client, \
                httpx.AsyncClient(base_url=self.engine.http_url, timeout=10) as http:
            await client.join(opts={"networks": ["eip155:31337"]})
            self.session = client.session
            await client.intent("host", "open", {})
            await client.intent("connect/email", "submit", {"value": email})
            await client.recv_until(lambda f: "/embedded/signin?" in str(f), timeout=10)
            code = await asyncio.to_thread(code_for, self.smtp, email)
            answer = await http.post("/embedded/signin", json=registration(client.session, code, DeviceKey()),
                                     headers=frame_headers(self.engine.http_url))
            assert answer.json() == {"verdict": "accepted"}, answer.text
            frames = await client.recv_until(lambda f: f["t"] == "host_event" and f.get("kind") == "account"
                                             and f["data"].get("isConnected") is True, timeout=10)
            address = [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"][-1]["address"]
            await client.intent("host", "rpc", {"id": "1", "method": "personal_sign", "params": ["0x6869", address]})
            got = await client.recv_until(lambda f: "approve/frame/" in str(f), timeout=10)
            src = re.search(r"/embedded/approve\?session=[\w-]+&request=e\d+", str(got[-1]))
            assert src is not None
            self.src.put(src.group(0))
            await asyncio.to_thread(self.done.wait, 60)
            self.answers = [f["data"] for f in await client.quiet(0.5)
                            if f["t"] == "host_event" and f.get("kind") == "rpc"]

    def __enter__(self) -> Attacker:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(30)
        assert not self.thread.is_alive()
        if self.failed:
            raise self.failed[0]


@pytest.fixture(scope="module")
def attacker_site() -> Iterator[str]:
    """The attacker's page: frames `?frame=<url>`, with the referrer or (`?strip=1`) without."""

    async def page(request: Request) -> HTMLResponse:
        policy = " referrerpolicy=no-referrer" if request.query_params.get("strip") else ""
        src = request.query_params.get("frame", "").replace('"', "")
        return HTMLResponse(f'<!doctype html><title>Totally the real dApp</title><iframe id=approval{policy} '
                            f'src="{src}" width=360 height=420></iframe>')

    with serve_app(Starlette(routes=[Route("/", page)])) as running:
        yield running.http_url


@pytest.mark.parametrize("strip", [False, True], ids=["referrer", "no-referrer"])
def test_a_frame_embedded_by_another_origin_than_the_sessions_refuses_and_signs_nothing(
        browser: Any, embedded_engine: RunningServer, smtp: LocalSmtpServer,  # noqa: F811
        attacker_site: str, strip: bool) -> None:
    from playwright.sync_api import expect

    real = f"http://127.0.0.1:{free_port()}"  # the real dApp's origin (an allowed origin: localhost)
    with Attacker(embedded_engine, smtp, real, f"forged-{int(strip)}@example.com") as attacker:
        src = attacker.src.get(timeout=60)
        assert src, attacker.failed
        context = browser.new_context()
        context.set_default_timeout(TIMEOUT_MS)
        try:
            page = context.new_page()
            page.goto(attacker_site + "/?" + httpx.QueryParams({"frame": embedded_engine.http_url + src,
                                                                 **({"strip": "1"} if strip else {})}).__str__())
            frame = page.frame_locator("#approval")
            refusal = frame.get_by_text(REFUSED % attacker_site)
            expect(refusal).to_be_visible()
            expect(frame.get_by_role("button", name="Approve")).to_have_count(0)
            expect(frame.locator("body")).not_to_contain_text(real)
            page.wait_for_timeout(500)
        finally:
            context.close()
        runner = embedded_engine.hub.runners.get(attacker.session)
        assert runner is not None
        request = runner.session.model.embedded.request
        assert request is not None and not request.signing  # still waiting: nothing signed
    assert attacker.answers == []
