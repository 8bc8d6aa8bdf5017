"""The shared msgpack packer: every encode gives the bytes a fresh packer would."""

from __future__ import annotations

import msgpack
import pytest

from modalcore.wire.codec import encode


def test_an_encode_after_a_value_that_cannot_be_packed_is_unaffected() -> None:
    frame = {"t": "patch", "s": 7, "a": 3, "ops": [["m", "connect/list", {"busy": True}]]}
    with pytest.raises(TypeError):
        encode({"t": "patch", "s": 8, "bad": object()})
    assert encode(frame) == msgpack.packb(frame, use_bin_type=True)


def test_consecutive_encodes_do_not_carry_bytes_over() -> None:
    assert [encode(1), encode("two"), encode(b"\x03")] == [b"\x01", b"\xa3two", b"\xc4\x01\x03"]
