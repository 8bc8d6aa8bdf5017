"""Issue 38 item 7: operator sign-in is rate-limited per client address and takes only a token of
at least 32 bytes; key files that exist with group or other permissions are narrowed to 0600 when
the engine starts with them."""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path

import httpx
import pytest

from modalcore.embedded.masterkey import MasterKey
from modalcore.server.config import ConfigError, EngineConfig, resolve_secret
from modalcore.server.operator_limit import FAILURES, WINDOW_MS, WrongTokens
from modalcore.siwx.backend.tokens import load_or_create_key
from modalcore_testing import make_test_config, start_server

from ..analytics.test_operator_login import TOKEN, filled_store


def test_rule_300_wrong_bearer_tokens_from_one_address_compare_only_the_first_ten(
        caplog: pytest.LogCaptureFixture) -> None:
    """The reported attack: 300 wrong tokens as fast as the socket allows. 10 are compared (401),
    the rest get 429 with Retry-After, the right token too while the address waits."""
    with start_server(make_test_config(operator_token=TOKEN), store=filled_store()) as server, \
            httpx.Client(base_url=server.http_url, timeout=10) as client:
        codes = [client.get("/v1/analytics/counts", headers={"Authorization": f"Bearer wrong-{i}"}).status_code
                 for i in range(300)]
        assert codes.count(401) == FAILURES and codes.count(429) == 300 - FAILURES
        assert codes[:FAILURES] == [401] * FAILURES
        held = client.get("/v1/analytics/counts", headers={"Authorization": f"Bearer {TOKEN}"})
        assert held.status_code == 429 and 0 < int(held.headers["retry-after"]) <= WINDOW_MS // 1000
        assert held.json()["error"] == "too_many_attempts"
        assert client.get("/v1/analytics/counts").status_code == 401  # no token presented: nothing to compare
    assert "Traceback" not in caplog.text


def test_rule_the_sign_in_form_counts_wrong_tokens_too() -> None:
    with start_server(make_test_config(operator_token=TOKEN), store=filled_store()) as server, \
            httpx.Client(timeout=10) as client:
        base = server.http_url
        statuses = []
        for _ in range(FAILURES + 2):
            page = client.get(base + "/operator/analytics")
            csrf = re.search(r"name='csrf' value='([^']+)'", page.text)
            assert csrf is not None
            statuses.append(client.post(base + "/operator/login", headers={"Origin": base}, data={
                "token": "not-it", "csrf": csrf.group(1), "next": "/operator/analytics"}).status_code)
        assert statuses == [401] * FAILURES + [429, 429]


def test_rule_another_address_is_not_held_back_and_the_window_frees_the_address() -> None:
    now = [0]
    table = WrongTokens(clock=lambda: now[0])
    for _ in range(FAILURES):
        assert table.wait_s("198.51.100.7") == 0
        table.failed("198.51.100.7")
    assert table.wait_s("198.51.100.7") == 60
    assert table.wait_s("203.0.113.9") == 0  # the operator's own address
    assert table.wait_s("2001:db8::1") == 0
    for _ in range(FAILURES):
        table.failed("2001:db8::1")
    assert table.wait_s("2001:db8::ffff") == 60  # an IPv6 /64 is one address
    now[0] = WINDOW_MS - 1_500
    assert table.wait_s("198.51.100.7") == 2
    now[0] = WINDOW_MS
    assert table.wait_s("198.51.100.7") == 0


@pytest.mark.parametrize("token", ["x", "a" * 31, "é" * 15])
def test_rule_an_operator_token_under_32_bytes_is_refused_at_config_load(token: str) -> None:
    with pytest.raises(ConfigError, match=r"operator_token: .*operator_token is \d+ bytes: it must be at least 32"):
        make_test_config(operator_token=token)
    assert make_test_config(operator_token="é" * 16).operator_token == "é" * 16  # 32 bytes
    assert make_test_config(operator_token="").operator_token == ""  # off


def test_rule_key_files_made_0644_before_start_are_narrowed_at_start(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    secret, engine_key, master = tmp_path / "secret", tmp_path / "engine.key", tmp_path / "master.key"
    secret.write_text("a" * 64 + "\n")
    engine_key.write_text("0x" + "11" * 32 + "\n")
    master.write_text(MasterKey.generate().hex())
    for path in (secret, engine_key, master):
        os.chmod(path, 0o644)
    assert resolve_secret(EngineConfig(secret_file=str(secret))) == b"a" * 64
    load_or_create_key(engine_key)
    MasterKey.read_file(master)
    assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in (secret, engine_key, master)} == {
        "secret": "0o600", "engine.key": "0o600", "master.key": "0o600"}
    assert caplog.text.count("narrowed to 0600") == 3 and "Traceback" not in caplog.text
