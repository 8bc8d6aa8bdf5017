"""Bad input on a joined socket: a typed `error` each time, the session and its neighbours intact."""

from __future__ import annotations

import random

import msgpack

from modalcore_testing import RunningServer
from modalcore.wire.codec import encode


async def test_garbage_gets_typed_errors_and_the_session_survives(
    running_server: RunningServer,
) -> None:
    rng = random.Random(1234)
    async with running_server.client() as client, running_server.client() as other:
        await client.join()
        welcome_last = client.last
        await other.join()
        garbage: list[tuple[bytes | str, str]] = [
            (rng.randbytes(40), "malformed"),
            (b"\xc1", "malformed"),
            (msgpack.packb([1, 2, 3]), "malformed"),
            (msgpack.packb({"t": "nope", "s": 1, "a": 0}), "malformed"),
            (encode({"t": "intent", "s": "2", "a": 0, "iid": 7, "node": "host", "act": "open",
                     "args": {}}), "malformed"),
            (encode({"t": "intent", "s": 2, "a": 0, "iid": "x" * 65, "node": "host",
                     "act": "open", "args": {}}), "malformed"),
            (encode({"t": "join", "s": 2, "a": 0, "project": "test"}), "malformed"),
            ("a text frame", "malformed"),
            (b"\x00" * 100_000, "too_large"),
        ]
        for data, code in garbage:
            await client.send_raw(data)
            frame = await client.recv()
            assert frame["t"] == "error", data[:20]
            assert frame["code"] == code, (data[:20], frame)
            assert frame["s"] == 0 and isinstance(frame["message"], str)
        # the session is intact: an intent still works, numbered after the welcome
        await client.intent("host", "open")
        frames = await client.recv_until(lambda f: f["t"] == "patch")
        assert [f["t"] for f in frames] == ["intent_ack", "patch"]
        assert frames[0]["s"] == welcome_last + 1 and frames[1]["base"] == 1
        # and the other session on the other socket too
        await other.intent("host", "open")
        assert [f["t"] for f in await other.recv_until(lambda f: f["t"] == "patch")] == [
            "intent_ack", "patch"]


async def test_random_bytes_never_break_the_socket(running_server: RunningServer) -> None:
    rng = random.Random(99)
    async with running_server.client() as client:
        await client.join()
        for _ in range(50):
            await client.send_raw(rng.randbytes(rng.randrange(1, 300)))
        errors = [await client.recv() for _ in range(50)]
        assert {frame["t"] for frame in errors} == {"error"}
        await client.intent("host", "open")
        assert (await client.recv())["status"] == "ok"


async def test_repeated_too_large_frames_close_1009(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        await client.join()
        for _ in range(3):
            await client.send_raw(b"\x01" * 70_000)
        code = await client.closed()
    assert [f["code"] for f in client.frames if f["t"] == "error"] == ["too_large"] * 3
    assert code == 1009
