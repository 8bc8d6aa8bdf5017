"""`GET /v1/audit/{session}` (issue 20, part 2): operators only, behind the operator token; off
(404) when the config sets none."""

from __future__ import annotations

import asyncio

import httpx

from modalcore.store.memory import MemoryStore
from modalcore_testing import make_test_config, start_server

from .test_audit_log import drive_connect_disconnect

OPERATOR = "an-operator-token-of-at-least-32-bytes"


def filled_store() -> MemoryStore:
    store = MemoryStore()
    asyncio.run(drive_connect_disconnect(store))
    return store


def test_rule_the_audit_endpoint_answers_the_operator_token_only() -> None:
    config = make_test_config(operator_token=OPERATOR)
    with start_server(config, store=filled_store()) as server:
        url = f"{server.http_url}/v1/audit/s-audit"
        assert httpx.get(url).status_code == 401
        assert httpx.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 401
        answer = httpx.get(url, headers={"Authorization": f"Bearer {OPERATOR}"})
        assert answer.status_code == 200
        body = answer.json()
        assert body["verified"] is True and body["broken"] is None
        assert [e["kind"] for e in body["entries"]] == ["connect", "chain_switch", "disconnect"]
        assert body["entries"][1]["prev"] == body["entries"][0]["hash"]
        unknown = httpx.get(f"{server.http_url}/v1/audit/nope",
                            headers={"Authorization": f"Bearer {OPERATOR}"})
        assert unknown.status_code == 404


def test_rule_without_an_operator_token_the_audit_endpoint_does_not_exist() -> None:
    with start_server(make_test_config(), store=filled_store()) as server:
        answer = httpx.get(f"{server.http_url}/v1/audit/s-audit",
                           headers={"Authorization": "Bearer x"})
        assert answer.status_code == 404
