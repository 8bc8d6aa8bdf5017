"""`audit show <session> <request>`: the approval the visitor signed, drawn again from the audit
log, with every check that can be made after the fact (docs/features/approval-record.md).

Checks, each printed: the stored tree is a canonical approval tree and its SHA-256 is the hash
recorded; it is the tree of this session and request, and the digest it holds is that of the
call it holds; the device key's signature holds over the approval text with that digest and hash;
the call the engine handed its signer has that digest; the session's audit chain holds and, when
the engine signed its heads, the entry is covered by a signed head.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..embedded.approval_tree import NotATree, call_digest, read, render_text, tree_hash
from ..embedded.devicekeys import BadPublicKey, parse_public_key, signature_ok
from ..embedded.passkeys import approval_challenge, assertion_holds
from ..server.approval import approval_text
from ..store.base import SessionStore
from ..ledger.chain import StoredEntry
from ..audit.verify import Anchor, verify_store

NOT_FOUND = 6  # no approval of that request in that session's log
MISMATCH = 7  # the record does not hold: tree, hash, signature or executed call
MAX_ID_CHARS = 128


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    code: int = 0

    def check(self, ok: bool, what: str, why: str = "") -> None:
        self.lines.append(f"  {'ok  ' if ok else 'FAIL'} {what}" + ("" if ok or not why else f": {why}"))
        if not ok:
            self.code = max(self.code, MISMATCH)


def _find(entries: list[StoredEntry], request: str) -> tuple[StoredEntry, dict[str, object], dict[str, object] | None] | None:
    """The newest approval entry of `request`, its data, and its outcome's data."""
    found: tuple[StoredEntry, dict[str, object]] | None = None
    result: dict[str, object] | None = None
    for entry in entries:
        try:
            value = json.loads(entry.body)
        except ValueError:
            continue
        data = value.get("data") if isinstance(value, dict) else None
        if not isinstance(data, dict) or data.get("eid") != request:
            continue
        if value.get("kind") == "approval":
            found, result = (entry, data), None
        elif value.get("kind") == "approval_result" and found is not None:
            result = data
    return None if found is None else (*found, result)


def _tree_bytes(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


PASSKEY_PREFIX = "passkey:"


def _passkey_holds(data: Mapping[str, object], text: bytes) -> bool:
    """A passkey Approve (server/passkey.py): the stored assertion is over the SHA-256 of the
    approval text, signed by the stored COSE key."""
    try:
        key = _tree_bytes(str(data["public_key"])[len(PASSKEY_PREFIX):])
        answer = json.loads(str(data.get("signature", "")))
    except (ValueError, binascii.Error):
        return False
    return bool(key) and assertion_holds(key, answer, approval_challenge(text))


def _record(report: Report, session: str, request: str, data: dict[str, Any]) -> None:
    """Draw the stored tree and check what the record says of it."""
    tree: dict[str, Any] | None = None
    try:
        raw = _tree_bytes(str(data.get("tree", "")))
        tree = read(raw)
    except (NotATree, ValueError, binascii.Error) as error:
        report.lines.append("(the stored tree cannot be drawn)")
        report.check(False, "the stored tree is a canonical approval tree", str(error))
        raw = b""
    if tree is not None:
        report.lines.extend(["", render_text(tree), ""])
        outcome = tree["outcome"]
        # issue 43: render_text draws a simulated outcome with the rows; say where it came from
        report.lines.append("  simulated outcome: " + ("none shown (not simulated)" if outcome is None
                                                       else f"shown above ({outcome['status']})"))
        report.check(True, "the stored tree is a canonical approval tree")
    shown = str(data.get("tree_hash", ""))
    report.check(bool(raw) and tree_hash(raw) == shown, f"its SHA-256 is the hash the visitor signed ({shown[:16]}…)")
    digest = str(data.get("digest", ""))
    if tree is not None:
        report.check(tree["session"] == session and tree["request"] == request,
                     "it is the tree of this session and request",
                     f"it names session {tree['session']} request {tree['request']}")
        call = tree["call"]
        report.check(tree["digest"] == digest == call_digest(call["method"], call["params"], call["chain"]),
                     "the call it shows has the digest the visitor signed")
    report.check(str(data.get("executed_digest", "")) == digest,
                 "the call the engine handed its signer is the call shown")
    text = approval_text(session, request, digest, str(data.get("nonce", "")), True, str(data.get("seen", "")), shown)
    if str(data.get("public_key", "")).startswith(PASSKEY_PREFIX):
        report.check(_passkey_holds(data, text), f"the passkey's assertion holds ({data.get('seen', '')})")
        return
    try:
        key_id, spki = parse_public_key(str(data.get("public_key", "")))
    except BadPublicKey:
        key_id, spki = "", b""
    report.check(bool(spki) and signature_ok(spki, text, str(data.get("signature", ""))),
                 f"the device key's signature holds (key {key_id[:16]}…, {data.get('seen', '')})")


async def show(store: SessionStore, session: str, request: str, engine: str | None,
               anchors: list[Anchor]) -> Report:
    report = Report()
    if not session or not request or len(session) > MAX_ID_CHARS or len(request) > MAX_ID_CHARS:
        report.lines.append("no such session or request")
        report.code = NOT_FOUND
        return report
    entries = await store.audit.entries(session)
    found = _find(entries, request)
    if found is None:
        report.lines.append(f"session {session} holds no approval of request {request}")
        report.code = NOT_FOUND
        return report
    entry, data, result = found
    report.lines.append(f"session {session} request {request}: {data.get('method', '')} approved "
                        f"(audit entry {entry.seq})")
    _record(report, session, request, data)
    verdict = await verify_store(store, engine, anchors, only=session)
    for finding in verdict.findings:
        report.check(False, "the audit chain holds", f"{finding.problem.name} {finding}")
        report.code = max(report.code, finding.problem.value)
    if not verdict.findings:
        report.check(True, f"the audit chain holds ({len(entries)} entries)")
    upto = verdict.signed_upto.get(session, 0)
    if upto >= entry.seq:
        report.check(True, f"the entry is anchored: the engine {engine or '(signer not checked)'} signed "
                           f"this log up to entry {upto}")
    else:
        report.lines.append(f"  note the entry is not covered by a signed head yet (signed up to entry {upto})")
    if result is None:
        report.lines.append("  the signer's answer: none recorded yet")
    elif result.get("outcome") == "executed":
        report.lines.append(f"  the signer's answer: {result.get('result', '')} (a signature, or the transaction's hash)")
    else:
        report.lines.append(f"  the signer's answer: {result.get('outcome', '')}")
    return report
