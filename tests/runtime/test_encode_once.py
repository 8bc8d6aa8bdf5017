"""Issue 17: each frame is encoded once. The bytes a socket receives are the bytes the session
keeps in its ring for resume, and a patch reuses the ops it packed to choose patch or snapshot."""

from __future__ import annotations

from typing import Any

import msgpack

from modalcore_testing import RunnerRig
from modalcore.wire.codec import encode, encode_with
from modalcore.wire import codec


class _KeepingOutlet:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def send_bytes(self, data: bytes) -> None:
        self.sent.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        return None


def test_encode_with_is_byte_for_byte_encode() -> None:
    frames: list[dict[str, Any]] = [
        {"t": "patch", "s": 3, "a": 1, "base": 1, "v": 2, "ops": [[3, "modal", {"open": True}]]},
        {"t": "snapshot", "s": 1, "a": 0, "v": 1, "tree": {"id": "modal", "c": ["x" * 300]}},
        {f"k{i}": i for i in range(40)},  # past the 15-key fixmap
    ]
    for frame in frames:
        last = list(frame)[-1]
        assert encode_with(frame, {last: encode(frame[last])}) == encode(frame)
        assert msgpack.unpackb(encode_with(frame, {last: encode(frame[last])})) == frame


async def test_the_socket_gets_the_ring_bytes_and_ops_are_packed_once(
    rig: RunnerRig, intent: Any, monkeypatch: Any,
) -> None:
    outlet = _KeepingOutlet()
    await rig.runner.attach(outlet, lambda g: f"t{g}", resumed=True, last=rig.session.out_seq)
    await rig.runner.settled()
    packed: list[Any] = []
    real = codec.encode

    def counting(value: Any) -> bytes:
        packed.append(value)
        return real(value)

    monkeypatch.setattr("modalcore.wire.framing.encode", counting)
    outlet.sent.clear()
    rig.runner.put_frame(intent(1, "host", "open"), outlet)
    await rig.runner.settled()
    ring = {seq: data for seq, data in rig.session.ring}
    numbered = [data for data in outlet.sent if msgpack.unpackb(data)["s"] > 0]
    assert numbered and all(any(data is kept for kept in ring.values()) for data in numbered)
    patch = next(msgpack.unpackb(d) for d in numbered if msgpack.unpackb(d)["t"] == "patch")
    assert packed == [patch["ops"]]  # measured once; the frame reused those bytes
