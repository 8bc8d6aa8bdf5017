"""Checking what a session shows (`Harness.expect`, `{"expect": {...}}` in a sequence)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .screen import is_open, shown_ids, texts_on_screen, view_of
from .words import quote

if TYPE_CHECKING:
    from ..enginetest import Harness

CHECKS = ("view", "open", "text", "no_text", "node", "no_node", "props", "ack", "effect", "call", "host")


def _many(value: object) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _texts(texts: list[str]) -> str:
    return ", ".join(quote(t) for t in texts) if texts else "none"


def expectation_failures(h: Harness, checks: dict[str, Any]) -> list[str]:
    """One sentence per check that does not hold; [] when all hold."""
    unknown = sorted(set(checks) - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown expectation {', '.join(unknown)} (known: {', '.join(CHECKS)})")
    tree = h.tree.to_wire()
    texts = texts_on_screen(tree)
    failures = []
    if "view" in checks and view_of(tree) != checks["view"]:
        failures.append(f"expected view {quote(checks['view'])}, the view is {quote(view_of(tree))}")
    if "open" in checks and is_open(tree) != bool(checks["open"]):
        state = "open" if is_open(tree) else "closed"
        failures.append(f"expected the modal {'open' if checks['open'] else 'closed'}, it is {state}")
    for text in _many(checks.get("text", [])):
        if not any(str(text) in shown for shown in texts):
            failures.append(f"expected {quote(text)} on screen ({view_of(tree)}); "
                            f"texts on screen: {_texts(texts)}")
    for text in _many(checks.get("no_text", [])):
        if any(str(text) in shown for shown in texts):
            failures.append(f"expected no {quote(text)} on screen ({view_of(tree)}), it is there")
    ids = shown_ids(tree)
    for node in _many(checks.get("node", [])):
        if node not in ids:
            failures.append(f"expected node {node} on screen ({view_of(tree)}), it is not")
    for node in _many(checks.get("no_node", [])):
        if node in ids:
            failures.append(f"expected no node {node} on screen, it is there")
    for node_id, props in dict(checks.get("props", {})).items():
        found = h.find(node_id)
        if found is None:
            failures.append(f"expected node {node_id} with {props}, there is no such node")
            continue
        for key, want in dict(props).items():
            if found.p.get(key) != want:
                failures.append(f"expected {node_id}/{key} = {quote(want)}, it is {quote(found.p.get(key))}")
    if "ack" in checks:
        last = list(h.acks.values())[-1] if h.acks else None
        status = last["status"] if last else None
        if status != checks["ack"]:
            detail = f" ({last.get('error')})" if last and last.get("error") else ""
            failures.append(f"expected the last intent {quote(checks['ack'])}, it was {quote(status)}{detail}")
    for method in _many(checks.get("effect", [])):
        pending = [e["req"].get("method") or e["kind"] for e in h.pending_effects()]
        if method not in pending:
            failures.append(f"expected a pending {method} effect; pending: {pending or 'none'}")
    for service in _many(checks.get("call", [])):
        pending = [c.service.name for c in h.pending_calls()]
        if service not in pending:
            failures.append(f"expected a pending {service} call; pending: {pending or 'none'}")
    for kind, fields in dict(checks.get("host", {})).items():
        try:
            data = h.host_state(kind)
        except KeyError:
            failures.append(f"expected a {kind} host event, none was sent")
            continue
        for key, want in dict(fields).items():
            if data.get(key) != want:
                failures.append(f"expected host {kind}.{key} = {quote(want)}, it is {quote(data.get(key))}")
    return failures
