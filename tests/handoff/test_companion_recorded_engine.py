"""A real engine with `record_dir` (issue 44; docs/testers/record-replay.md): the session's
recording holds the linked phone's join (its public key, never the nonce or the signature of
its signed join), its press (`in` by the companion) and the frames it was sent (`out` to the
companion), and `modalcore replay` replays the file byte-equal, the host's frames and the phone's."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modalcore.engine.record import replay_file
from modalcore.server.companion import signed_text
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import Client, RunningServer

from ..embedded.mail_engine import mail_engine
from ..embedded.device import DeviceKey, frame_headers
from ..embedded.test_approval_credential import CLOCK, mail
from .test_companion_routes import _companion_url, _linked, _nonce

__all__ = ["mail"]


@pytest.fixture(scope="module")
def recording_engine(tmp_path_factory: pytest.TempPathFactory, mail: LocalSmtpServer) -> Iterator[RunningServer]:
    folder: Path = tmp_path_factory.mktemp("recorded")
    with mail_engine(folder, mail, clock=CLOCK, record_dir=folder / "rec") as running:
        yield running


async def test_rule_a_recorded_session_holds_the_phones_part_but_not_its_signed_join_and_replays_exactly(
        recording_engine: RunningServer, mail: LocalSmtpServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    engine = recording_engine
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        phone = DeviceKey()
        link = await _linked(client, http, mail, phone)
        session = client.session
        nonce = (await _nonce(http, link, phone, frame_headers(engine.http_url))).json()["nonce"]
        signature = phone.sign(signed_text(session, nonce))
        async with Client.open(_companion_url(engine), origin=engine.http_url) as mobile:
            await mobile.join(companion={"session": session, "public_key": phone.spki, "nonce": nonce,
                                         "signature": signature},
                              env={"mobile": True, "platform": "ios", "width": 390}, opts={}, wallets=[])
            await mobile.intent("account/feature/receive", "press", {})
            await client.recv_until(lambda f: f["t"] == "patch")
            await mobile.recv_until(lambda f: f["t"] == "patch")
            await client.intent("header/back", "press", {})
            await mobile.recv_until(lambda f: f["t"] == "patch")
            await mobile.quiet(0.2)
            phone_frames = list(mobile.frames)
        await client.quiet(0.3)
    path = next((engine.app.state.hub.record_dir).glob(f"{session}.jsonl"))
    text = path.read_text()
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert nonce not in text and signature not in text, "the phone's signed join is in the recording"
    assert [e for e in events if e["k"] == "companion"] == [
        {"k": "companion", "now": events[[e["k"] for e in events].index("companion")]["now"], "public_key": phone.spki}]
    pressed = [e["frame"] for e in events if e["k"] == "in" and e.get("by") == "companion"]
    assert [(f.get("node"), f.get("act")) for f in pressed if f["t"] == "intent"] == [("account/feature/receive", "press")]
    sent = [e["frame"] for e in events if e["k"] == "out" and e.get("to") == "companion"]
    assert sent == [f for f in phone_frames if f["t"] != "ack"], "the recording holds other frames than the phone got"
    run = replay_file(path)
    assert run.divergences() == [], run.divergences()[:1]
    assert "Traceback" not in caplog.text
