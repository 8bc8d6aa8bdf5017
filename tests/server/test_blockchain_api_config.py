"""The operator's `[blockchain_api]` setting puts the hosted Blockchain API (behaviour.md §7) on the
production path: the running engine's history service asks it, with behaviour.md §7's query parameters;
without the setting the engine's own indexer serves history and nothing hosted is asked."""

from __future__ import annotations

from pathlib import Path

import httpx
from eth_account import Account


from modalcore.runtime.clock import FakeClock
from modalcore.core.services import ServiceContext
from modalcore.runtime.services import ServiceRegistry
from modalcore.server.app import blockchain_api
from modalcore.server.config import parse_config
from modalcore.services.backend.wiring import register_engine_services
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore.slices.history import HistoryFetched
from modalcore.services.domain.handles import HISTORY
from modalcore.services.domain.shapes import HistoryArgs

from ..hosted_http import recording_http

ACCOUNT = "0x" + "ab" * 20
CTX = ServiceContext("s1", "proj1", FakeClock(start_ms=1))


def _registry(tmp_path: Path, http: httpx.AsyncClient, config: dict[str, object]) -> ServiceRegistry:
    registry = ServiceRegistry()
    api = blockchain_api(parse_config(config, tmp_path), http)
    register_engine_services(registry, http, SqliteSiwxStore(str(tmp_path / "siwx.db")), Account.create(),
                             blockchain_api=api)
    return registry


async def test_a_configured_blockchain_api_serves_history_with_spec_parameters(tmp_path: Path) -> None:
    async with recording_http({"data": [], "next": "c2"}) as (seen, http):
        registry = _registry(tmp_path, http, {"blockchain_api": {"base_url": "https://api.example/",
                                                                 "project_id": "proj1"}})
        settled = await registry.call(
            HISTORY.call(HistoryArgs(address=ACCOUNT, chain="eip155:1", cursor="c1"), HistoryFetched), CTX)
    assert settled.ok and settled.result == {"data": [], "next": "c2"}
    assert [str(r.url.copy_with(query=None)) for r in seen] == [
        f"https://api.example/v1/account/{ACCOUNT}/history"]
    assert dict(seen[0].url.params) == {"projectId": "proj1", "st": "html-wagmi-4.2.2", "sv": "4",
                                        "cursor": "c1", "chainId": "eip155:1"}


async def test_without_the_setting_nothing_hosted_is_asked(tmp_path: Path) -> None:
    async with recording_http({}) as (seen, http):
        assert blockchain_api(parse_config({}, tmp_path), http) is None
        registry = _registry(tmp_path, http, {})
        settled = await registry.call(
            HISTORY.call(HistoryArgs(address=ACCOUNT, chain="eip155:1", rpc_url="http://127.0.0.1:9/"),
                         HistoryFetched), CTX)
    # the engine's own indexer asked the network's RPC (unreachable here), not a hosted API
    assert not settled.ok
    assert all("/v1/account/" not in str(r.url) for r in seen)
