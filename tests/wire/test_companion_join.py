"""The companion join at the socket edge (PROTOCOL.md, "Companion"): its fields are bounded and
it never carries a resume token; the vector parses into the typed frame."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modalcore.wire.codec import encode
from modalcore.wire.frames import FrameError, Join, parse_client_frame

VECTORS = json.loads((Path(__file__).parents[2] / "protocol/vectors/codec.json").read_text())


def _vector(name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(v["value"] for v in VECTORS if v["name"] == name)
    return found


def test_the_companion_join_vector_is_a_join_with_its_companion() -> None:
    frame = parse_client_frame(encode(_vector("client/join-companion")))
    assert isinstance(frame, Join) and frame.companion is not None
    assert frame.companion.session == "s1" and frame.resume is None


@pytest.mark.parametrize("change", [
    {"resume": "s1.2.1700000000.ab12"},
    {"last": 3},
], ids=["with-resume", "with-last"])
def test_a_companion_join_with_a_resume_token_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(FrameError) as refused:
        parse_client_frame(encode({**_vector("client/join-companion"), **change}))
    assert refused.value.code == "malformed"


@pytest.mark.parametrize("field,value", [
    ("public_key", "A" * 345),
    ("signature", "Q" * 89),
    ("nonce", "n" * 129),
    ("session", ""),
    ("signature", "not base64!"),
    ("extra", "x"),
])
def test_a_companion_join_over_its_bounds_is_refused(field: str, value: str) -> None:
    frame = _vector("client/join-companion")
    with pytest.raises(FrameError):
        parse_client_frame(encode({**frame, "companion": {**frame["companion"], field: value}}))
