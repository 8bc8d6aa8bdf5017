"""`path_to`: the nodes from the root down to a node id (what an intent's lookup and the
"hidden ancestor" rule read, issue 17: no per-tree index is kept)."""

from __future__ import annotations

from modalcore.wire.nodes import Node, path_to


def _tree() -> Node:
    return Node.from_wire({"id": "r", "t": "stack", "c": [
        {"id": "a", "t": "stack", "c": [{"id": "a1", "t": "text"}, {"id": "a2", "t": "stack", "c": [
            {"id": "deep", "t": "button"}]}]},
        {"id": "b", "t": "text"},
    ]})


def test_rule_the_path_runs_from_the_root_to_the_node() -> None:
    tree = _tree()
    for target, ids in {"r": ["r"], "a1": ["r", "a", "a1"], "deep": ["r", "a", "a2", "deep"],
                        "b": ["r", "b"]}.items():
        path = path_to(tree, target)
        assert path is not None and [node.id for node in path] == ids


def test_rule_an_id_not_in_the_tree_has_no_path() -> None:
    assert path_to(_tree(), "missing") is None
    assert path_to(Node("r", "text"), "x") is None
