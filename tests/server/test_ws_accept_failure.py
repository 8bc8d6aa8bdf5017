"""A socket the server cannot accept is closed with a typed reason and one log line, never
answered with the server's HTTP 500 page (issue 37: uvicorn 0.55 raised inside its accept when
the scope lacked `raw_path`, and every handshake became a 500)."""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import Any

import pytest

from modalcore.server.endpoint import ACCEPT_FAILED, CLOSE_ACCEPT_FAILED, websocket_endpoint
from modalcore.server.socket import Socket
from modalcore.server.app import create_app
from modalcore_testing import make_test_config


async def test_an_accept_the_server_fails_closes_the_socket_with_a_typed_reason(
        caplog: pytest.LogCaptureFixture) -> None:
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "websocket.accept":
            raise KeyError("raw_path")  # what uvicorn 0.55 raised

    scope = {"type": "websocket", "path": "/ws", "query_string": b"project=demo",
             "headers": [(b"origin", b"http://127.0.0.1")], "client": ("127.0.0.1", 1)}
    config = make_test_config()
    state = create_app(config).state  # never started: a failed accept touches nothing of it
    with caplog.at_level(logging.WARNING):
        await websocket_endpoint(Socket(scope, receive, send), state.hub, config, state.metrics)
    assert sent[-1] == {"type": "websocket.close", "code": CLOSE_ACCEPT_FAILED, "reason": ACCEPT_FAILED}
    failures = [r for r in caplog.records if "accept failed" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is None
