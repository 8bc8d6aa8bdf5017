from __future__ import annotations

import json
from pathlib import Path

import pytest

from modalcore.server import tokens
from modalcore.server.config import (
    ConfigError,
    default_config,
    dev_networks,
    load_config,
    parse_config,
    resolve_secret,
)
from modalcore_dev.devchain.anvil import ANVIL_NAME

REPO = Path(__file__).resolve().parents[2]


AUD = tokens.audience("demo", "https://app.example.com")

# Every way a token can be malformed; each must be a TokenError, never another exception.
MALFORMED = [
    "", ".", "...", "a.b", "a.b.c", "a.1.2.3.4", "a.x1.2000.ff", "a b.1.2000." + "0" * 64,
    "abc.1.2000." + "é" * 64, "abc.1.2000." + "\u0661" * 64, "abc.١.2000." + "0" * 64,
    "abc.².2000." + "0" * 64, "abc.1.2000." + "0" * 63 + "\n", "abc.1.2000." + "A" * 64,
    "abc.1.2000." + "0" * 65, "abc.-1.2000." + "0" * 64, "abc.1.99999999999999." + "0" * 64,
    "x" * 100_000, "." * 511, "abc\x00.1.2000." + "0" * 64, "☃.1.2000." + "0" * 64,
    "YWJj.MQ.MjAwMA." + "0" * 64,  # base64 parts
]


def test_token_round_trip_and_refusals() -> None:
    token = tokens.sign(b"k", "abc_DEF-1", 3, 2000, AUD)
    assert token.startswith("abc_DEF-1.3.2000.")
    assert tokens.verify(b"k", token, 1999, AUD) == tokens.Claim("abc_DEF-1", 3)
    with pytest.raises(tokens.TokenError, match="expired"):
        tokens.verify(b"k", token, 2001, AUD)
    with pytest.raises(tokens.TokenError, match="signature"):
        tokens.verify(b"other", token, 0, AUD)
    forged = token.replace("abc_DEF-1.3", "abc_DEF-1.4")
    with pytest.raises(tokens.TokenError):
        tokens.verify(b"k", forged, 0, AUD)
    with pytest.raises(ValueError):
        tokens.sign(b"k", "has.dot", 1, 1, AUD)


def test_a_token_verifies_only_for_its_project_and_origin() -> None:
    token = tokens.sign(b"k", "abc", 1, 2000, AUD)
    for project, origin in [("demo", "https://evil.vercel.app"), ("other", "https://app.example.com"),
                            ("demo", "http://app.example.com"), ("demo", "https://app.example.com:444")]:
        with pytest.raises(tokens.TokenError, match="signature"):
            tokens.verify(b"k", token, 0, tokens.audience(project, origin))


@pytest.mark.parametrize("bad", MALFORMED, ids=range(len(MALFORMED)))
def test_any_malformed_token_is_a_token_error(bad: str) -> None:
    """A resume token is client input: nothing in it may raise anything but TokenError."""
    with pytest.raises(tokens.TokenError):
        tokens.verify(b"k", bad, 0, AUD)


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
        parse_config({"store": {"kind": "postgres"}})
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


def test_a_dev_chain_is_named_as_configured_an_anvil_node_is_not_hardhat() -> None:
    """The approval's Network row (signed with the tree) names the node the engine runs on: an
    Anvil node on chain 31337 (the simulated-outcome tests and bench) is "Anvil"."""
    rpc = {31337: "http://127.0.0.1:1", 31338: "http://127.0.0.1:2"}
    assert dev_networks(rpc, {})["eip155:31337"]["name"] == "Hardhat"
    named = dev_networks(rpc, {}, names={31337: ANVIL_NAME})
    assert (named["eip155:31337"]["name"], named["eip155:31338"]["name"]) == ("Anvil", "Hardhat Two")
