"""A recording (`record_dir`, engine/record.py) holds what the linked phone received and sent
(issue 44; docs/testers/record-replay.md): its join (its public key only), its intents as `in`
events `"by": "companion"` (a replay feeds them to the session as the companion's) and its frames
as `out` events `"to": "companion"`; `modalcore replay` replays them byte-equal."""

from __future__ import annotations

import argparse
import io
import json
import secrets
from pathlib import Path
from typing import Any

from modalcore import samples
from modalcore.core.evolve import replace
from modalcore.engine.record import Recorder, replay_file, updated_lines
from modalcore.enginetest import Harness
from modalcore.enginetest.companion import Phone
from modalcore.inspect.recording import inspect_file
from modalcore.replay.cli import add_arguments, run
from modalcore.slices.embedded import PasskeySignedIn
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import Join
from modalcore.slices.handoff import PhoneClaimed, link_digest, link_token, linked_key, use_link_key

from .test_handoff_engine import BASE, KEY, NONCE, _confirm

# what a phone's signed join carries beside its key (server/companion.py): never recorded
SIGNATURE = "c2lnbmF0dXJlLW9mLXRoZS1waG9uZXMta2V5LXNlY3JldA"
ORIGIN = "http://localhost:8000"
ADDRESS = "0x" + "ab" * 20
JOIN_NONCE = "bm9uY2UtZ2l2ZW4tYnktdGhlLWVuZ2luZS1zZWNyZXQ"


def _recorded(path: Path) -> tuple[Harness, Phone]:
    """A session recorded to `path`: a link offered and claimed, the phone linked and joined,
    a press on the phone, one on the computer, the phone's Back."""
    sink = path.open("w")
    frame = Join.model_validate({"t": "join", "s": 1, "a": 0, **samples.join(features={"continueOnPhone": True})})
    model = initial_model(frame.project, ORIGIN, parse_options(frame.opts), frame.env, frame.wallets)
    model = replace(model, embedded=replace(model.embedded, email_offered=True))  # an engine with SMTP
    h = Harness(model, join=frame, origin=ORIGIN, recorder=Recorder(sink, name="phone"))
    h.host("open")
    h.deliver(PasskeySignedIn(email="mia@example.com", address=ADDRESS))  # signed in: a link may be confirmed
    h.host("open")
    h.expect(view="Account", node="footer/continue-on-phone")
    h.press("footer/continue-on-phone")
    h.settle_call("handoff.token", {"nonce": NONCE, "base": BASE})
    token = link_token(h.model.session_id, NONCE)
    h.deliver(PhoneClaimed(digest=link_digest(h.model.session_id, token), public_key=KEY, origin=BASE))
    _confirm(h)
    assert linked_key(h.model) == KEY
    h.host("open")
    phone = Phone(h, KEY)
    phone.press("account/feature/receive")
    phone.press("header/back")
    h.press("account/feature/receive")
    sink.close()
    return h, phone


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_rule_a_recording_holds_the_companions_intents_and_frames_and_replays_byte_equal(tmp_path: Path) -> None:
    path = tmp_path / "phone.jsonl"
    h, phone = _recorded(path)
    events = _events(path)
    joins = [e for e in events if e["k"] == "companion"]
    assert joins == [{"k": "companion", "now": joins[0]["now"], "public_key": KEY}]
    intents = [e["frame"] for e in events if e["k"] == "in" and e.get("by") == "companion"]
    assert [(f["node"], f["act"]) for f in intents] == [("account/feature/receive", "press"), ("header/back", "press")]
    to_phone = [e["frame"] for e in events if e["k"] == "out" and e.get("to") == "companion"]
    assert to_phone == phone.frames, "the recording holds other frames than the phone was sent"
    # the host page's (the first, `joined`, with its resume token as a placeholder)
    to_host = [e["frame"] for e in events if e["k"] == "out" and "to" not in e]
    assert to_host[1:] == h.frames[1:], "the recording holds other frames than the host page was sent"
    run = replay_file(path)
    assert run.divergences() == []
    assert run.frame_count() == len(phone.frames) + len(h.frames)
    assert "".join(updated_lines(run)).splitlines()[1:] == path.read_text().splitlines()[1:]


def test_rule_a_replay_feeds_the_companions_intent_as_the_companions(tmp_path: Path) -> None:
    """The same press replayed as the host page's would ack on the host's socket: a divergence."""
    path = tmp_path / "phone.jsonl"
    _recorded(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for event in lines:
        if event["k"] == "in" and event.get("by") == "companion":
            del event["by"]
            break
    moved = tmp_path / "as-host.jsonl"
    moved.write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert replay_file(moved).divergences(), "the phone's press replayed as the host's changed nothing"


def test_rule_a_recording_holds_no_signature_or_nonce_of_the_phones_join(tmp_path: Path) -> None:
    path = tmp_path / "phone.jsonl"
    _recorded(path)
    text = path.read_text()
    assert KEY in text
    assert SIGNATURE not in text and JOIN_NONCE not in text
    assert not [e for e in _events(path) if {"signature", "nonce"} & set(e)]


def test_rule_the_inspector_steps_through_a_recording_with_a_phone_and_draws_the_host_pages_tree(
        tmp_path: Path) -> None:
    """`modalcore inspect`: no step diverges, and the phone's patches are not applied to the host's tree."""
    path = tmp_path / "phone.jsonl"
    h, _ = _recorded(path)
    inspection = inspect_file(path)
    assert not inspection.problem
    assert [step.line for step in inspection.steps if step.diverges or step.error] == []
    assert inspection.steps[-1].recorded_tree == h.tree.to_wire()


def _replay_cli(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    out, err = io.StringIO(), io.StringIO()
    code = run(parser.parse_args(list(argv)), out, err)
    return code, out.getvalue() + err.getvalue()


def test_rule_another_process_replays_a_phone_session_exactly_with_the_engines_config(tmp_path: Path) -> None:
    """The link (QR code, the claim's digest) comes from the engine's secret, which the recording
    never holds: `replay --config` derives it again; without it, the replay is told it differs."""
    secret = "the-engines-secret-for-links"
    path = tmp_path / "phone.jsonl"
    try:
        use_link_key(secret.encode())
        _recorded(path)
        use_link_key(secrets.token_bytes(32))  # another process: a random link key
        code, said = _replay_cli(str(path))
        assert code == 1 and said.startswith("DIVERGED"), said
        config = tmp_path / "engine.json"
        config.write_text(json.dumps({"secret": secret}))
        code, said = _replay_cli(str(path), "--config", str(config))
        assert code == 0 and said.startswith("ok "), said
        assert secret not in path.read_text()
    finally:
        use_link_key(secrets.token_bytes(32))
