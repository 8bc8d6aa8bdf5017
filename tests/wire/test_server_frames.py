"""Server frames are typed (wire/serverframes.py): one definition per frame kind PROTOCOL.md lists,
each round-tripping through the shared vectors byte for byte, and the bytes a session sends are
the bytes of its typed frames."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from modalcore.enginetest import METAMASK, Harness
from modalcore.wire import serverframes
from modalcore.wire.codec import decode, encode
from modalcore.wire.framegen import _field
from modalcore.wire.serverframes import (
    EFFECT_KINDS,
    FIELDS,
    SERVER_FRAMES,
    EffectRequest,
    ErrorFrame,
    IntentAck,
    NotAServerFrame,
    ack_status,
    effect_kind,
    encoded,
    error_frame,
    server_frame,
    wire,
)

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
CODEC: list[dict[str, Any]] = json.loads((ROOT / "protocol" / "vectors" / "codec.json").read_text(encoding="utf-8"))
SERVER_VECTORS = [v for v in CODEC if v["name"].startswith("server/")]
# PROTOCOL.md's type words -> the check the generated renderer table runs for such a field
DOC_TYPES = {"str": {"str", "enum"}, "int": {"int"}, "bool": {"bool"}, "map": {"map"}, "node": {"node"},
             "list": {"list"}}


def _documented() -> dict[str, list[tuple[str, bool, str]]]:
    """PROTOCOL.md's "Server → client" table: frame type -> (field, optional, type word)."""
    section = PROTOCOL.split("## Server → client", 1)[1].split("\n## ", 1)[0]
    table: dict[str, list[tuple[str, bool, str]]] = {}
    for line in section.splitlines():
        row = re.match(r"^\| `(\w+)` \| (.*?) \| ", line)
        if row is None or row.group(2).startswith("fields"):  # not a row, or the header
            continue
        fields = [] if row.group(2).strip() == "—" else [
            (m.group(1), m.group(2) == "?", m.group(3))
            for m in (re.match(r"`(\w+)`(\?)? (\w+)", part.strip()) for part in row.group(2).split(", "))
            if m is not None
        ]
        table[row.group(1)] = fields
    return table


def test_rule_every_server_frame_kind_of_protocol_md_has_one_typed_definition() -> None:
    documented = _documented()
    assert set(documented) == {cls.t for cls in SERVER_FRAMES}
    for cls in SERVER_FRAMES:
        hints = get_type_hints(cls, include_extras=True)
        fields = [(name, _field(hints[name])[2], _field(hints[name])[1].rstrip("?")) for name in FIELDS[cls]]
        assert [(name, optional) for name, optional, _ in fields] == \
            [(name, optional) for name, optional, _ in documented[cls.t]], cls.t
        for (name, _, check), (_, _, word) in zip(fields, documented[cls.t], strict=True):
            assert check in DOC_TYPES[word], f"{cls.t}.{name}: PROTOCOL.md says {word}"


def test_rule_every_frame_kind_has_a_vector() -> None:
    assert {v["value"]["t"] for v in SERVER_VECTORS} == {cls.t for cls in SERVER_FRAMES}


@pytest.mark.parametrize("vector", SERVER_VECTORS, ids=[v["name"] for v in SERVER_VECTORS])
def test_rule_a_server_vector_round_trips_through_its_typed_frame(vector: dict[str, Any]) -> None:
    frame = server_frame(decode(bytes.fromhex(vector["hex"])))
    assert type(frame).t == vector["value"]["t"]
    assert list(wire(frame).items()) == list(vector["value"].items())  # keys in protocol order
    assert encoded(frame).hex() == vector["hex"]
    rebuilt = type(frame)(frame.s, frame.a, **{name: getattr(frame, name) for name in FIELDS[type(frame)]})
    assert encoded(rebuilt).hex() == vector["hex"]


def test_a_map_that_is_no_server_frame_is_refused() -> None:
    for value in ([1], {"t": "nope", "s": 1, "a": 0}, {"t": "effect_cancel", "s": 1, "a": 0},
                  {"t": "ack", "s": 0, "a": 0, "extra": 1}):
        with pytest.raises(NotAServerFrame):
            server_frame(value)


def test_an_optional_field_is_omitted_when_absent() -> None:
    assert wire(IntentAck(3, 1, "i1", "ok")) == {"t": "intent_ack", "s": 3, "a": 1, "iid": "i1", "status": "ok"}


def test_rule_error_frames_have_one_constructor() -> None:
    assert error_frame("malformed", "bad", 4) == ErrorFrame(0, 4, "malformed", "bad")
    hand_made = [path for path in (ROOT / "modalcore").rglob("*.py")
                 if re.search(r"""["']t["']\s*:\s*["'](error|goodbye|ack)["']""", path.read_text(encoding="utf-8"))]
    assert hand_made == []


def test_a_saved_intent_status_reads_back_only_as_an_ack_status() -> None:
    assert ack_status("stale") == "stale"
    with pytest.raises(ValueError):
        ack_status("maybe")


def test_rule_the_bytes_a_session_sends_are_its_typed_frames_encoded() -> None:
    """Frames encoded while the engine chose a patch or snapshot (reusing the bytes it measured)
    and frames replayed from the resend ring are the same bytes as their typed frame, encoded
    plainly."""
    harness = Harness(wallets=[METAMASK])
    session = harness.session
    harness.host("open")
    harness.press("connect/all-wallets")
    harness.press("header/back")
    sent = list(session.ring)
    assert sent, "the ring holds the frames not yet acknowledged"
    missed = session._missed_since(sent[0][0] - 1)
    assert missed is not None
    for (seq, data), frame in zip(sent, missed, strict=True):
        assert frame.s == seq and encoded(frame) is data
        assert encode(wire(frame)) == data
        assert server_frame(decode(data)) == frame


def test_a_withheld_effect_becomes_an_effect_cancel_of_the_same_number_in_the_ring() -> None:
    harness = Harness()
    session = harness.session
    before = session.out_seq
    frame = session._keep(EffectRequest(session._next(), 0, "e9", "eip1193", 1000, {"method": "personal_sign"}))
    kept = session.withhold([frame], {"e9"})
    assert [f.t for f in kept] == ["effect_cancel"] and kept[0].s == before + 1
    assert decode(session.ring[-1][1]) == {"t": "effect_cancel", "s": before + 1, "a": 0, "eid": "e9"}
    assert serverframes.BY_TYPE["effect_cancel"] is type(kept[0])


def test_rule_the_effect_kinds_are_the_ones_protocol_md_lists_and_no_other_is_sent() -> None:
    """The renderer routes an effect by its kind in its one frame table (architecture.md, "The
    routing mechanisms"): the kinds are PROTOCOL.md's list, generated into frames.gen.ts's check."""
    section = PROTOCOL.split("Effect kinds and their `req`:", 1)[1].split("\n\n", 1)[0]
    assert tuple(re.findall(r"^- `([a-z0-9_]+)`:", section, re.MULTILINE)) == EFFECT_KINDS
    assert [effect_kind(kind) for kind in EFFECT_KINDS] == list(EFFECT_KINDS)
    with pytest.raises(ValueError):
        effect_kind("teleport")
    generated = (ROOT / "renderer" / "src" / "frames.gen.ts").read_text(encoding="utf-8")
    assert "kind: [" + ", ".join(f"'{kind}'" for kind in EFFECT_KINDS) + "]" in generated
