"""A wallet's error answer over a real socket is the wallet's answer, whatever its text (issue 30):
only the engine's own timer expiring is a time-out (a typed flag, `EffectSettled.timed_out`),
never a message that reads "timeout"."""

from __future__ import annotations

import json
from typing import Any

import pytest

from modalcore_testing import Client, RunningServer
from tests.devwallet import press_dev_wallet


async def _press_dev_wallet(client: Client) -> dict[str, Any]:
    """Join with the Dev Wallet announced, open, press it; the eth_requestAccounts effect."""
    effect = await press_dev_wallet(client)
    assert effect["req"]["method"] == "eth_requestAccounts"
    return effect


def _drawn(frames: list[dict[str, Any]]) -> str:
    return json.dumps([f for f in frames if f["t"] in ("patch", "snapshot")])


@pytest.mark.parametrize("message", ["timeout", "User rejected the request."])
async def test_a_wallet_refusal_reading_timeout_shows_connection_declined(
        running_server: RunningServer, message: str) -> None:
    async with running_server.client() as client:
        effect = await _press_dev_wallet(client)
        await client.send({"t": "effect_result", "eid": effect["eid"], "ok": False,
                           "error": {"code": 4001, "message": message}})
        frames = await client.recv_until(lambda f: f["t"] == "patch" and "Connection declined" in _drawn([f]))
        assert "Try again" in _drawn(frames)


async def test_a_late_second_answer_to_the_same_effect_is_ignored(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        effect = await _press_dev_wallet(client)
        answer = {"t": "effect_result", "eid": effect["eid"], "ok": False, "error": {"code": 4001, "message": "timeout"}}
        await client.send(answer)
        await client.recv_until(lambda f: f["t"] == "patch" and "Connection declined" in _drawn([f]))
        await client.send({**answer, "ok": True, "result": ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"]})
        later = await client.quiet(0.5)
        # ignored: no new wallet request and no account drawn (a patch of something unrelated, such
        # as a background lookup finishing on a loaded machine, may still arrive)
        assert [f for f in later if f["t"] == "effect"] == []
        assert "f39fd6e51aad88f6f4ce6ab8827279cfffb92266" not in _drawn(later).lower()
