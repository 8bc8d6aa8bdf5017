"""The approval tree: what the approval frame draws, as data whose hash the visitor's Approve
signs (docs/features/approval-record.md).

One tree per waiting request: the call itself (method, params JSON text, chain, and its digest,
which the Approve signature covers too), the nodes the frame draws (the heading, who approves on
which site, each decoded row), and `outcome`, the simulated outcome shown beside them (issue 43:
`simulation.outcome.Outcome.to_tree`, flows/simulation.py; None for a message or typed data). Its bytes are
canonical msgpack: maps with their keys sorted, the smallest encoding of every integer and string
(what `msgpack.packb` writes), only maps, lists, text, integers and nil. The frame draws from
those bytes and hashes them (SHA-256), the engine hashes the tree it built for the request, the
audit log keeps the bytes; `read` refuses bytes that are not a canonical tree (the same value
could otherwise be written two ways with two hashes).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import TYPE_CHECKING, Any

import msgpack

from .decode import TITLES, describe
from .decode_calls import SWAP_FUNCTIONS, UNISWAP_V2_ROUTER, Names, decoded, describe_calls, describe_transaction

if TYPE_CHECKING:
    from ..slices.embedded import EmbeddedRequest
    from ..slices.model import Model

VERSION = 1
# a client frame is at most 64 KiB (rules/limits.py), so a request's params are too; the rows
# decode them (each text at most decode.MAX_TEXT): twice that and some is every tree
MAX_TREE_BYTES = 192 * 1024
MAX_NODES = 400
_ROW_BYTES = 40  # a row node's msgpack beside its label and text (keys, markers, lengths)
_KEYS = frozenset({"v", "session", "request", "call", "digest", "nodes", "outcome"})


class NotATree(ValueError):
    """Bytes that are not a canonical approval tree (too long, not msgpack, another shape)."""


def request_digest(request: EmbeddedRequest) -> str:
    """SHA-256 of the canonical request (method, params JSON text, chain)."""
    return call_digest(request.method, request.params, request.chain)


def call_digest(method: str, params: str, chain: str) -> str:
    canonical = json.dumps([method, params, chain], separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def engine_names(model: Model) -> Names:
    """The contracts of the transactions the engine itself built: the swap's router (named
    Uniswap V2 Router when its call is one of that router's swaps)."""
    swap = model.swap.pending.swap if model.swap.pending else model.swap.quote.swap if model.swap.quote else None
    tx = dict(swap or ())
    router = tx.get("to", "")
    if not router:
        return {}
    found = decoded(tx.get("data", ""))
    return {router.lower(): UNISWAP_V2_ROUTER if found and found[0] in SWAP_FUNCTIONS else "Swap router"}


def build(model: Model, request: EmbeddedRequest) -> dict[str, Any]:
    """The tree the frame draws for `request` in this session."""
    network = model.networks.get(request.chain) if request.chain else None
    title = TITLES.get(request.method, request.method)
    if request.method == "wallet_sendCalls":  # EIP-5792: each call of the one operation (issue 32)
        rows = describe_calls(request.params, network, model.accounts.get("eip155").address or "")
    elif request.method == "eth_sendTransaction":  # decoded as the calls are: tokens, amounts, the router
        title, rows = describe_transaction(request.params, network, engine_names(model))
    else:
        rows = describe(request.method, request.params, network)
    nodes: list[dict[str, object]] = [
        {"t": "heading", "text": title},
        {"t": "who", "text": model.embedded.user_email or model.embedded.identity, "origin": model.origin}]
    tree = {"v": VERSION, "session": model.session_id, "request": request.eid,
            "call": {"method": request.method, "params": request.params, "chain": request.chain},
            "digest": request_digest(request), "nodes": nodes,
            "outcome": request.outcome.to_tree() if request.outcome is not None else None}
    room = MAX_TREE_BYTES - len(encode(tree)) - _ROW_BYTES
    kept: list[dict[str, object]] = []
    for label, text in rows[:MAX_NODES - 3]:
        room -= len(label.encode()) + len(text.encode()) + _ROW_BYTES
        if room < 0:
            break
        kept.append({"t": "row", "label": label, "text": text})
    if len(kept) < len(rows):  # the frame says what it leaves out; the call itself is whole
        kept.append({"t": "row", "label": "More", "text": f"{len(rows) - len(kept)} more not shown"})
    nodes.extend(kept)
    return tree


def _sorted(value: object) -> object:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def encode(tree: dict[str, object]) -> bytes:
    """The canonical msgpack bytes of a tree."""
    data: bytes = msgpack.packb(_sorted(tree), use_bin_type=True)
    return data


def tree_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise NotATree(f"its {name} is not text")
    return value


_OUTCOME_KEYS = frozenset({"status", "note", "changes", "more", "fee", "warnings"})


def _outcome(value: object) -> None:
    """The simulated outcome of a tree (simulation/outcome.py `Outcome.to_tree`), or nil."""
    if value is None:
        return
    if not isinstance(value, dict) or set(value) != _OUTCOME_KEYS or not isinstance(value["more"], int):
        raise NotATree("its outcome is not an outcome")
    for key in ("status", "note", "fee"):
        _text(value[key], f"outcome's {key}")
    for key in ("changes", "warnings"):
        if not isinstance(value[key], list) or len(value[key]) > MAX_NODES:
            raise NotATree(f"its outcome's {key} are not a list")
        for item in value[key]:
            _text(item, f"outcome's {key}")


def read(data: bytes) -> dict[str, Any]:
    """The tree in canonical bytes, or NotATree."""
    if len(data) > MAX_TREE_BYTES:
        raise NotATree(f"longer than {MAX_TREE_BYTES} bytes")
    try:
        tree = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        raise NotATree("not msgpack") from None
    if not isinstance(tree, dict) or set(tree) != _KEYS or tree["v"] != VERSION:
        raise NotATree("not an approval tree of this version")
    call, nodes = tree["call"], tree["nodes"]
    if not isinstance(call, dict) or set(call) != {"method", "params", "chain"}:
        raise NotATree("its call is not a call")
    for key in ("method", "params", "chain"):
        _text(call[key], f"call's {key}")
    for key in ("session", "request", "digest"):
        _text(tree[key], key)
    if not isinstance(nodes, list) or len(nodes) > MAX_NODES:
        raise NotATree("its nodes are not a list")
    for item in nodes:
        if not isinstance(item, dict) or not all(isinstance(v, str) for v in item.values()) or "t" not in item:
            raise NotATree("a node is not a map of text")
    _outcome(tree["outcome"])
    if encode(tree) != data:
        raise NotATree("not in canonical form")
    return tree


def render_text(tree: dict[str, Any]) -> str:
    """The tree as text, as the frame lays it out: the heading, who and where, then each row."""
    lines: list[str] = []
    for item in tree["nodes"]:
        kind = item.get("t")
        if kind == "heading":
            lines.append(item.get("text", ""))
        elif kind == "who":
            lines.append(f"{item.get('text', '')} · {item.get('origin', '')}")
        elif kind == "row":
            lines.append(f"  {item.get('label', '')}: {item.get('text', '')}")
        else:
            lines.append(f"  ({kind})")
    outcome = tree.get("outcome")
    if outcome:  # issue 43: the simulated outcome shown beside the rows
        lines.append(f"  {outcome['note']}")
        lines += [f"    {change}" for change in outcome["changes"]]
        if outcome["more"]:
            lines.append(f"    +{outcome['more']} more")
        if outcome["fee"]:
            fee = outcome["fee"]  # "≈ 0.00004 ETH", or "Fee unavailable" as it is
            lines.append(f"    Fee {fee}" if fee.startswith("≈") else f"    {fee}")
        lines += [f"  ⚠ {warning}" for warning in outcome["warnings"]]
    return "\n".join(lines)


def shown_hash(tree_b64: str) -> str:
    """The hash a frame signs for the tree `/embedded/approve/begin` gave it (base64url bytes)."""
    return tree_hash(base64.urlsafe_b64decode(tree_b64 + "=" * (-len(tree_b64) % 4)))
