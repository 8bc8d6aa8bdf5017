from __future__ import annotations

import json
from pathlib import Path

import pytest

from modalcore.server import tokens
from modalcore.server.config import (
    ConfigError,
    default_config,
    load_config,
    parse_config,
    resolve_secret,
)

REPO = Path(__file__).resolve().parents[2]


def test_token_round_trip_and_refusals() -> None:
    token = tokens.sign(b"k", "abc_DEF-1", 2000)
    assert token.startswith("abc_DEF-1.2000.")
    assert tokens.verify(b"k", token, 1999) == "abc_DEF-1"
    with pytest.raises(tokens.TokenError, match="expired"):
        tokens.verify(b"k", token, 2001)
    with pytest.raises(tokens.TokenError, match="signature"):
        tokens.verify(b"other", token, 0)
    forged = token.replace("abc_DEF-1", "abc_DEF-2")
    with pytest.raises(tokens.TokenError):
        tokens.verify(b"k", forged, 0)
    for bad in ["", "a.b", "a.b.c.d", "a.x1.ff", "a b.1.ff"]:
        with pytest.raises(tokens.TokenError):
            tokens.verify(b"k", bad, 0)
    with pytest.raises(ValueError):
        tokens.sign(b"k", "has.dot", 1)


def test_example_config_loads() -> None:
    config = load_config(REPO / "config" / "engine.example.toml")
    assert config.store.kind == "sqlite"
    assert config.path(config.store.path) == REPO / ".modalcore" / "sessions.db"
    assert config.dev_network("31337") is not None
    assert config.dev_network("1") is None  # not a dev chain
    assert config.projects["demo"].origin_policy().allows("https://x.example.org")
    assert not config.projects["strict"].origin_policy().allows("http://localhost:3000")


def test_json_config_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "engine.json"
    path.write_text(json.dumps({"projects": {"p": {"origins": ["https://a.io"]}}}))
    assert list(load_config(path).projects) == ["p"]
    path.write_text(json.dumps({"projects": {"p": {"origins": ["ftp://a.io"]}}}))
    with pytest.raises(ConfigError, match="origins"):
        load_config(path)
    with pytest.raises(ConfigError, match="networks"):
        parse_config({"networks": {"nocolon": {"name": "x", "rpc": ["u"],
                                               "native": {"name": "E", "symbol": "E"}}}})
    with pytest.raises(ConfigError):
        parse_config({"store": {"kind": "redis"}})
    with pytest.raises(ConfigError):
        load_config(tmp_path / "missing.toml")


def test_secret_generated_once_and_kept(tmp_path: Path) -> None:
    config = parse_config({"secret_file": "state/secret"}, tmp_path)
    first = resolve_secret(config)
    assert len(first) == 64
    assert (tmp_path / "state" / "secret").stat().st_mode & 0o077 == 0
    assert resolve_secret(config) == first
    assert resolve_secret(parse_config({"secret": "given"})) == b"given"


def test_default_config_has_a_demo_project() -> None:
    config = default_config()
    assert "demo" in config.projects
    assert config.dev_network("31337") is not None
