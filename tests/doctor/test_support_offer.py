"""A support code is offered only where it can be redeemed (docs/features/session-doctor.md):
an engine that keeps recordings (`serve --record-dir`) shows "Copy support code" under a
declined connect; one that keeps none shows the same failure without it, since no code of
it could ever open a replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from modalcore_testing import Client, RunningServer, running_server, start_server
from tests.devwallet import press_dev_wallet

__all__ = ["running_server"]


async def _declined(client: Client) -> str:
    """Join, open, press the Dev Wallet, decline; everything drawn up to "Connection declined"."""
    effect = await press_dev_wallet(client)
    await client.send({"t": "effect_result", "eid": effect["eid"], "ok": False,
                       "error": {"code": 4001, "message": "User rejected the request."}})
    drawn: list[dict[str, Any]] = []

    def declined(frame: dict[str, Any]) -> bool:
        if frame["t"] in ("patch", "snapshot"):
            drawn.append(frame)
        return "Connection declined" in json.dumps(drawn)

    await client.recv_until(declined)
    return json.dumps(drawn)


async def test_rule_an_engine_without_recordings_offers_no_support_code(running_server: RunningServer) -> None:
    async with running_server.client() as client:
        drawn = await _declined(client)
    assert "Try again" in drawn and "Copy support code" not in drawn


async def test_rule_an_engine_that_records_offers_the_support_code(tmp_path: Path) -> None:
    with start_server(record_dir=tmp_path / "rec") as server:
        async with server.client() as client:
            drawn = await _declined(client)
    assert "Try again" in drawn and "Copy support code" in drawn
