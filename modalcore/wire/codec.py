"""msgpack encoding of frames (PROTOCOL.md, "Transport")."""

from __future__ import annotations

from typing import Any

import msgpack

from ..rules.limits import MAX_FRAME_BYTES as MAX_FRAME_BYTES


class DecodeError(ValueError):
    """A frame that is not a msgpack value of the allowed shapes."""


def encode(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]


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
