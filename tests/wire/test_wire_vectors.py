"""The shared vectors of protocol/vectors/ (the TypeScript renderer reads the same files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modalcore.wire.codec import decode, encode
from modalcore.wire.diff import apply, diff
from modalcore.wire.frames import parse_client_frame
from modalcore.wire.nodes import Node

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
CODEC: list[dict[str, Any]] = json.loads((VECTORS / "codec.json").read_text(encoding="utf-8"))
DIFFS: list[dict[str, Any]] = json.loads((VECTORS / "diff.json").read_text(encoding="utf-8"))

CLIENT_TYPES = {"join", "intent", "effect_result", "wallet_event", "resync", "leave", "ack"}
SERVER_TYPES = {"joined", "snapshot", "patch", "effect", "effect_cancel", "intent_ack", "host_event",
                "theme", "error", "goodbye", "ack"}
# PROTOCOL.md field order after the envelope (t, s, a); optional fields in brackets are omitted
FIELD_ORDER = {
    "join": ["project", "resume", "last", "companion", "env", "opts", "wallets"],
    "intent": ["iid", "node", "act", "args"],
    "effect_result": ["eid", "ok", "result", "error"],
    "wallet_event": ["connector", "event", "data"],
    "resync": ["v"],
    "leave": [],
    "ack": [],
    "joined": ["session", "resume", "resumed"],
    "snapshot": ["v", "tree"],
    "patch": ["base", "v", "ops"],
    "effect": ["eid", "kind", "timeout", "req"],
    "effect_cancel": ["eid"],
    "intent_ack": ["iid", "status", "error"],
    "host_event": ["kind", "data"],
    "theme": ["mode", "vars"],
    "error": ["code", "message"],
    "goodbye": ["code", "message"],
}
NODE_ORDER = ["id", "t", "p", "c"]
ENV_ORDER = ["mobile", "platform", "telegram", "safari", "timezone", "origin", "width", "languages"]


def _frames(prefix: str) -> list[dict[str, Any]]:
    return [v for v in CODEC if v["name"].startswith(prefix)]


def _nodes(tree: dict[str, Any]) -> list[dict[str, Any]]:
    found = [tree]
    for child in tree.get("c", []):
        found.extend(_nodes(child))
    return found


def _in_order(keys: list[str], order: list[str]) -> bool:
    positions = [order.index(key) for key in keys]
    return all(key in order for key in keys) and positions == sorted(positions)


@pytest.mark.parametrize("vector", CODEC, ids=[v["name"] for v in CODEC])
def test_codec_vector_decodes_from_hex_to_value(vector: dict[str, Any]) -> None:
    assert decode(bytes.fromhex(vector["hex"])) == vector["value"]


@pytest.mark.parametrize("vector", CODEC, ids=[v["name"] for v in CODEC])
def test_codec_vector_encodes_from_value_to_hex(vector: dict[str, Any]) -> None:
    assert encode(vector["value"]).hex() == vector["hex"]


def test_codec_vectors_cover_every_frame_type() -> None:
    client = {v["value"]["t"] for v in _frames("client/")}
    server = {v["value"]["t"] for v in _frames("server/")}
    assert client == CLIENT_TYPES
    assert server == SERVER_TYPES
    patch = next(v["value"] for v in _frames("server/") if v["value"]["t"] == "patch")
    assert sorted({op[0] for op in patch["ops"]}) == [0, 1, 2, 3, 4]


def test_codec_vector_names_are_unique() -> None:
    names = [v["name"] for v in CODEC] + [f"diff:{v['name']}" for v in DIFFS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("vector", _frames("client/") + _frames("server/"),
                         ids=[v["name"] for v in _frames("client/") + _frames("server/")])
def test_codec_frame_vector_keys_are_in_protocol_order(vector: dict[str, Any]) -> None:
    frame = vector["value"]
    keys = list(frame)
    assert keys[:3] == ["t", "s", "a"]
    assert _in_order(keys[3:], FIELD_ORDER[frame["t"]])
    if frame["t"] == "join":
        assert _in_order(list(frame["env"]), ENV_ORDER)
    if frame["t"] == "effect_result" and "error" in frame:
        assert list(frame["error"]) == ["code", "message"]
    trees = [frame["tree"]] if frame["t"] == "snapshot" else []
    if frame["t"] == "patch":
        trees = [op[-1] for op in frame["ops"] if op[0] in (0, 4)]
    for tree in trees:
        for node in _nodes(tree):
            assert _in_order(list(node), NODE_ORDER)


@pytest.mark.parametrize("vector", _frames("client/"), ids=[v["name"] for v in _frames("client/")])
def test_codec_client_frame_vectors_are_valid_client_frames(vector: dict[str, Any]) -> None:
    frame = parse_client_frame(bytes.fromhex(vector["hex"]))
    assert frame.t == vector["value"]["t"]
    assert frame.s == vector["value"]["s"]


@pytest.mark.parametrize("case", DIFFS, ids=[c["name"] for c in DIFFS])
def test_diff_vector_gives_exactly_the_ops(case: dict[str, Any]) -> None:
    assert diff(Node.from_wire(case["a"]), Node.from_wire(case["b"])) == case["ops"]


@pytest.mark.parametrize("case", DIFFS, ids=[c["name"] for c in DIFFS])
def test_diff_vector_ops_turn_a_into_b(case: dict[str, Any]) -> None:
    assert apply(case["a"], case["ops"]) == case["b"]


@pytest.mark.parametrize("case", DIFFS, ids=[c["name"] for c in DIFFS])
def test_diff_vector_trees_are_canonical_wire_trees(case: dict[str, Any]) -> None:
    for tree in (case["a"], case["b"]):
        assert Node.from_wire(tree).to_wire() == tree


def test_diff_vectors_cover_every_op() -> None:
    used = {op[0] for case in DIFFS for op in case["ops"]}
    assert used == {0, 1, 2, 3, 4}
    assert any(not case["ops"] for case in DIFFS)
