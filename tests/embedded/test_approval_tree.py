"""The approval tree (docs/features/approval-record.md): what the approval frame draws, as
canonical msgpack bytes whose SHA-256 the visitor's Approve signs. The same value has one
encoding (another is refused), the tree holds the call and its digest, an empty outcome slot,
and its size is bounded whatever the request: rows past the bound are counted, not drawn."""

from __future__ import annotations

import json

import msgpack
import pytest

from modalcore.embedded import approval_tree
from modalcore.embedded.approval_tree import MAX_NODES, MAX_TREE_BYTES, NotATree, build, call_digest, encode, read
from modalcore.server.approval import _page_body

from ..swap.harness import DEMO
from .test_approval_decoded_tx import APPROVE, params, with_request


def test_rule_the_tree_holds_the_call_its_digest_the_drawn_nodes_and_an_empty_outcome() -> None:
    model = with_request("eth_sendTransaction", params(DEMO.address, APPROVE))
    tree = build(model, model.embedded.request)
    assert tree["call"] == {"method": "eth_sendTransaction", "params": params(DEMO.address, APPROVE),
                            "chain": "eip155:31337"}
    assert tree["digest"] == call_digest("eth_sendTransaction", params(DEMO.address, APPROVE), "eip155:31337")
    assert tree["outcome"] is None and tree["nodes"][0] == {"t": "heading", "text": "Approve DEMO"}
    assert {"t": "row", "label": "Amount", "text": "25000000000000000000 (25 DEMO)"} in tree["nodes"]
    # the page the engine serves is drawn from the same tree
    assert "<h1>Approve DEMO</h1>" in _page_body(model, "e1")
    assert read(encode(tree)) == tree


def test_rule_one_value_has_one_encoding_and_anything_else_is_refused() -> None:
    model = with_request("personal_sign", json.dumps(["0x68656c6c6f", "0x" + "11" * 20]))
    tree = build(model, model.embedded.request)
    data = encode(tree)
    unsorted = msgpack.packb({key: tree[key] for key in reversed(sorted(tree))}, use_bin_type=True)
    assert unsorted != data and msgpack.unpackb(unsorted) == msgpack.unpackb(data)
    wide = data.replace(b"\xa7request", b"\xd9\x07request")  # the same key as str8: not the smallest form
    for bad, why in ((unsorted, "not in canonical form"), (wide, "not in canonical form"),
                     (data[:-1], "not msgpack"), (data + b"\x00", "not msgpack"),
                     (b"\x00" * (MAX_TREE_BYTES + 1), "longer than"),
                     (encode({**tree, "v": 2}), "not an approval tree of this version"),
                     (encode({**tree, "extra": 1}), "not an approval tree of this version"),
                     (encode({**tree, "nodes": [{"t": "row", "text": 1}]}), "a node is not a map of text")):
        with pytest.raises(NotATree, match=why):
            read(bad)


def test_rule_a_tree_stays_within_its_bound_and_says_what_it_leaves_out(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [(f"Field {i}", "x" * 1000) for i in range(MAX_NODES * 2)]
    monkeypatch.setattr(approval_tree, "describe", lambda *args: rows)
    model = with_request("personal_sign", json.dumps(["0x68656c6c6f", "0x" + "11" * 20]))
    tree = build(model, model.embedded.request)
    data = encode(tree)
    assert len(data) <= MAX_TREE_BYTES and len(tree["nodes"]) <= MAX_NODES
    shown = len(tree["nodes"]) - 3
    assert tree["nodes"][-1] == {"t": "row", "label": "More", "text": f"{len(rows) - shown} more not shown"}
    assert read(data) == tree
