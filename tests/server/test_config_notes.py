"""What `serve` and `demo` say about their config (issue 46 item 7): a top-level key nothing
reads is named with the key it most resembles (a misspelt `operator_tokn` would otherwise leave
the operator pages off without a word), and a recording engine says where its files go."""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

import pytest

from modalcore.server.config import parse_config, unknown_keys
from modalcore_testing import make_test_config, start_server

ROOT = Path(__file__).resolve().parents[2]


def test_rule_an_unknown_top_level_key_is_named_with_the_key_it_resembles() -> None:
    config = parse_config({"operator_tokn": "x" * 40, "zzz": 1, "siwx": {}, "names": {}})
    assert unknown_keys(config) == ["'operator_tokn' (did you mean 'operator_token'?)", "'zzz'"]


def test_rule_the_engine_warns_about_unknown_keys_when_it_starts(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="modalcore.server.app"):
        with start_server(make_test_config(operator_tokn="x" * 40)):
            pass
    assert [r.getMessage() for r in caplog.records if "unknown" in r.getMessage()] == [
        "config: unknown top-level key 'operator_tokn' (did you mean 'operator_token'?) is ignored"]


def test_rule_the_example_config_has_no_unknown_key() -> None:
    data = tomllib.loads((ROOT / "config" / "engine.example.toml").read_text())
    assert unknown_keys(parse_config(data)) == []


def test_rule_a_recording_engine_says_where_its_files_go(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="modalcore.server.app"):
        with start_server(make_test_config(), record_dir=tmp_path / "rec"):
            pass
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("recording")]
    assert said == [f"recording every new session to {(tmp_path / 'rec').resolve()} (one "
                    "<session>.jsonl each; tokens become placeholders)"]
