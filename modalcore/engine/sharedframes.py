"""One copy of the welcome frames that many sessions send alike (issue 17's idle memory).

A new session's first frames (its theme, snapshot and host events, numbered 1, 2, ...) are the
same bytes for every visitor of one page with the same options: the sessions' rings hold one
shared copy of each until the client acknowledges them, instead of one each (the snapshot is
most of a welcome: ~2.4 KiB for the Connect view). Bytes are immutable, so sharing changes
nothing a session sends or replays; a session's later frames are its own.

Bounded: the SHARED_FRAMES most recently seen frames of at most SHARED_FRAME_BYTES each.
"""

from __future__ import annotations

from collections import OrderedDict

SHARED_SEQS = 8  # a session's frames numbered up to this are looked up (a welcome has ~6)
SHARED_FRAMES = 64
SHARED_FRAME_BYTES = 64 * 1024

_frames: OrderedDict[bytes, bytes] = OrderedDict()


def share(data: bytes) -> bytes:
    """An equal frame seen before (the same object every caller gets), else `data`, kept."""
    if len(data) > SHARED_FRAME_BYTES:
        return data
    known = _frames.get(data)
    if known is not None:
        _frames.move_to_end(known)
        return known
    _frames[data] = data
    if len(_frames) > SHARED_FRAMES:
        _frames.popitem(last=False)
    return data
