"""The shared msgpack packer: every encode gives the bytes a fresh packer would."""

from __future__ import annotations

import msgpack
import pytest

from modalcore.wire.codec import encode, map_entries, map_header


def test_an_encode_after_a_value_that_cannot_be_packed_is_unaffected() -> None:
    frame = {"t": "patch", "s": 7, "a": 3, "ops": [["m", "connect/list", {"busy": True}]]}
    with pytest.raises(TypeError):
        encode({"t": "patch", "s": 8, "bad": object()})
    assert encode(frame) == msgpack.packb(frame, use_bin_type=True)


def test_consecutive_encodes_do_not_carry_bytes_over() -> None:
    assert [encode(1), encode("two"), encode(b"\x03")] == [b"\x01", b"\xa3two", b"\xc4\x01\x03"]


def test_a_maps_entries_follow_its_header_whatever_its_size() -> None:
    """Rule (issue 41, a save splices maps' entries): `map_header(n) + map_entries(m)` is
    `encode(m)` for a map of any size, across the one-, three- and five-byte headers."""
    for size in (0, 1, 15, 16, 17, 0xFFFF, 0x10000):
        value = {f"k{index}": index for index in range(size)}
        assert map_header(size) + map_entries(value) == encode(value)
