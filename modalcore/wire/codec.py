"""msgpack encoding of frames (PROTOCOL.md, "Transport")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack

from ..rules.limits import MAX_FRAME_BYTES as MAX_FRAME_BYTES


class DecodeError(ValueError):
    """A frame that is not a msgpack value of the allowed shapes."""


# One packer for the process: `packb` builds a new Packer on every call, which was a third of an
# encode's cost on the hot path. A pack holds the GIL throughout (no `default` hook), and on an
# error the packer empties its buffer, so the shared instance is safe to reuse.
_PACKER = msgpack.Packer(use_bin_type=True, autoreset=True)


def encode(value: object) -> bytes:
    return _PACKER.pack(value)  # type: ignore[no-any-return]


def encode_with(frame: dict[str, object], encoded: dict[str, bytes]) -> bytes:
    """`encode(frame)`, byte for byte, reusing the bytes of values already encoded (`encoded`:
    key -> the msgpack of `frame[key]`), so that a patch's ops measured once are not packed again."""
    if not encoded:
        return encode(frame)
    keys = list(frame)
    tail = keys[len(keys) - len(encoded):]
    if set(tail) == set(encoded):
        # the usual case (a patch's ops, a snapshot's tree come last): pack the head in one call
        # and append the known bytes under a header counting every entry
        size = len(keys) - len(encoded)
        rest = dict(frame)  # the head: a copy made in C, less the known keys
        for key in tail:
            del rest[key]
        head = encode(rest)
        parts: list[bytes | memoryview] = [map_header(len(frame)), memoryview(head)[len(map_header(size)):]]
        for key in tail:
            parts.append(encode(key))
            parts.append(encoded[key])
        return b"".join(parts)
    parts = [map_header(len(frame))]
    for key, value in frame.items():
        parts.append(encode(key))
        known = encoded.get(key)
        parts.append(known if known is not None else encode(value))
    return b"".join(parts)


def encode_map(*pieces: Mapping[str, object] | tuple[str, bytes]) -> bytes:
    """The msgpack of one map made of `pieces`, in order: maps whose values are packed here, and
    (key, the msgpack of its value) pairs packed already. Byte for byte `encode` of the map
    that merges them (the keys of the pieces are distinct)."""
    count = 0
    parts: list[bytes | memoryview] = [b""]
    for piece in pieces:
        if isinstance(piece, tuple):
            parts.append(encode(piece[0]))
            parts.append(piece[1])
            count += 1
        elif piece:
            size = len(piece)
            parts.append(map_entries(piece))
            count += size
    parts[0] = map_header(count)
    return b"".join(parts)


def map_entries(value: Mapping[str, object]) -> memoryview:
    """The msgpack of a map's entries, without its header (whose length depends on the count):
    `map_header(len(value)) + map_entries(value) == encode(value)`, whatever the size."""
    return memoryview(encode(value))[len(map_header(len(value))):]


def array_header(size: int) -> bytes:
    """The msgpack header of an array of `size` items (the items follow)."""
    if size < 16:
        return bytes((0x90 | size,))
    if size < 0x10000:
        return b"\xdc" + size.to_bytes(2, "big")
    return b"\xdd" + size.to_bytes(4, "big")


def map_header(size: int) -> bytes:
    """The msgpack header of a map of `size` entries (its keys and values follow)."""
    if size < 16:
        return bytes((0x80 | size,))
    if size < 0x10000:
        return b"\xde" + size.to_bytes(2, "big")
    return b"\xdf" + size.to_bytes(4, "big")


def decode(data: bytes) -> Any:
    if len(data) > MAX_FRAME_BYTES:
        raise DecodeError("too_large")
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
        )
    except Exception as error:  # msgpack raises several unrelated types for bad input
        raise DecodeError(f"malformed: {type(error).__name__}") from error
