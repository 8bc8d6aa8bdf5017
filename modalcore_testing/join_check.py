"""A session joined over a real websocket against an engine in another process (issue 37 item 4):
what the wheel test and the fresh-clone test check after `modalcore serve` or `make run` starts,
so an engine that answers its handshakes with HTTP 500 (issue 37: uvicorn 0.55 and a private
protocol subclass) fails them instead of passing on `/static/modal.js` alone.

`join_session` opens the socket with the websockets client (PROTOCOL.md: a `join` frame, then
`joined` and a `snapshot` whose tree is the modal) and returns the snapshot; a refused handshake,
a closed socket or a join answered with anything else fails with an AssertionError that says
which.
"""

from __future__ import annotations

from typing import Any

from websockets.exceptions import InvalidHandshake, WebSocketException

from modalcore_testing import Client

OPEN_S = 30.0  # a loaded machine: generous, never asserted as a duration


async def join_session(url: str, *, origin: str, project: str, networks: list[str] | None = None,
                       timeout: float = OPEN_S) -> dict[str, Any]:
    """Join a new session on `url` (`ws://host:port/ws?project=...`) as a page on `origin`; the
    `snapshot` frame the engine answers with."""
    try:
        async with Client.open(url, origin=origin, project=project) as client:
            opts = {"networks": networks or ["eip155:1"], "metadata": {"name": "Join check"}}
            frames = await client.join(opts=opts)
            kinds = [frame["t"] for frame in frames]
            if "joined" in kinds and "snapshot" not in kinds:
                frames += await client.recv_until(lambda frame: frame["t"] == "snapshot", timeout)
    except InvalidHandshake as refused:  # e.g. "server rejected WebSocket connection: HTTP 500"
        raise AssertionError(f"the websocket handshake at {url} was refused: {refused}") from None
    except (WebSocketException, OSError, TimeoutError) as failed:
        raise AssertionError(f"no session joined at {url}: {type(failed).__name__}: {failed}") from None
    assert "joined" in kinds, f"the engine answered `join` at {url} with {frames[:2]}"
    snapshot = next(frame for frame in frames if frame["t"] == "snapshot")
    assert snapshot["tree"]["t"] == "modal", snapshot["tree"]
    return snapshot
