"""The node contract (issue 12 item 7): one registry of node types and typed props
(modalcore/wire/registry.py) generates protocol/nodes.schema.json and the renderer's prop types,
and every tree the engine draws validates against it (recorded sessions included; the test
harnesses check every tree they see)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modalcore.wire import framegen, registry
from modalcore.wire.nodes import node
from modalcore.wire.registry import NodeContractError, prop_errors, tree_errors

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = sorted((ROOT / "fixtures" / "sessions").glob("*.jsonl"))


def test_the_committed_schema_is_generated_from_the_registry() -> None:
    assert (ROOT / "protocol" / "nodes.schema.json").read_text() == registry.schema_text(), \
        "run: python -m modalcore.wire.registry"


def test_the_renderer_prop_types_are_generated_from_the_registry() -> None:
    assert (ROOT / "renderer" / "src" / "nodes.gen.ts").read_text() == registry.typescript_text(), \
        "run: python -m modalcore.wire.registry"


def test_rule_the_renderer_frame_types_are_generated_from_the_typed_server_frames() -> None:
    assert (ROOT / "renderer" / "src" / "frames.gen.ts").read_text() == framegen.typescript_text(), \
        "run: python -m modalcore.wire.registry"
    assert registry.stale() == []


def test_rule_the_check_mode_fails_on_a_stale_generated_file(tmp_path: Path) -> None:
    for path, text in registry.generated().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert registry.main(["--check", str(tmp_path)]) == 0
    frames = tmp_path / "renderer" / "src" / "frames.gen.ts"
    frames.write_text(frames.read_text().replace("  status: 'ok' | ", "  status: 'fine' | "))
    assert registry.main(["--check", str(tmp_path)]) == 1
    registry.main([str(tmp_path)])
    assert registry.main(["--check", str(tmp_path)]) == 0


def test_the_schema_lists_every_node_type_and_closes_props() -> None:
    schema = registry.json_schema()
    assert set(schema["$defs"]) == {*registry.NODE_TYPES, "node"}
    assert schema["$defs"]["button"]["properties"]["p"]["additionalProperties"] is False
    assert schema["$defs"]["button"]["properties"]["p"]["properties"]["disabled"] == {"type": "boolean"}


def test_node_refuses_a_prop_the_registry_lacks() -> None:
    with pytest.raises(NodeContractError, match="button has no prop 'colour'|button has no prop colour"):
        node("button", "b", text="Go", colour="red")


def test_node_refuses_an_unknown_type() -> None:
    with pytest.raises(NodeContractError, match="unknown node type"):
        node("marquee", "m")


def test_a_prop_of_the_wrong_type_is_reported() -> None:
    assert prop_errors("button", {"disabled": "yes"}, "b") == ["b: button.disabled is boolean, got 'yes'"]
    assert tree_errors({"id": "m", "t": "modal", "c": [{"id": "x", "t": "text", "p": {"text": 3}}]}) \
        == ["x: text.text is string, got 3"]


def _recorded_nodes(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every tree, inserted or replaced subtree and prop merge of a recording (merges are checked
    against the type the node has in the tree at that point)."""
    types: dict[str, str] = {}

    def walk(wire: dict[str, Any]) -> Iterator[dict[str, Any]]:
        types[wire["id"]] = wire["t"]
        yield wire
        for child in wire.get("c") or ():
            yield from walk(child)

    for line in path.read_text().splitlines():
        event = json.loads(line) if line.strip() else {}
        frame = event.get("frame") if event.get("k") == "out" else None
        if not frame:
            continue
        if frame["t"] == "snapshot":
            for wire in walk(frame["tree"]):
                yield "node", wire
        elif frame["t"] == "patch":
            for op in frame["ops"]:
                if op[0] in (0, 4):
                    for wire in walk(op[3] if op[0] == 0 else op[2]):
                        yield "node", wire
                elif op[0] == 3:
                    merged = {k: v for k, v in op[2].items() if v is not None}
                    yield "props", {"id": op[1], "t": types.get(op[1], "?"), "p": merged}


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_every_recorded_tree_validates(path: Path) -> None:
    errors = [error for _, wire in _recorded_nodes(path)
              for error in prop_errors(wire["t"], wire.get("p") or {}, f"{path.name} {wire['id']}")]
    assert errors == []
    assert any(kind == "node" for kind, _ in _recorded_nodes(path))
