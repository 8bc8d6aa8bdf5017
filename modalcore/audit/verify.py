"""`audit verify` itself: every session's chain in a store, against the heads the engine signed
(`heads.py`) and, when given, the anchors kept elsewhere. Findings are typed by `Problem`, whose
value is the command's exit code."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum

from ..store.base import SessionStore
from ..ledger.chain import GENESIS, Broken, StoredEntry, digest, verify_chain
from .heads import Head, SignatureCheck, SignedHeads, UnreadableHeads, read_body

MAX_ANCHOR_LINE_CHARS = 1 << 20  # an exported set with its body (1,000 heads ~ 150 KB) fits


class Problem(IntEnum):
    """What does not hold; the value is `audit verify`'s exit code (the highest found wins)."""

    BROKEN = 1  # a link: an entry edited, or one missing before the last
    TRUNCATED = 3  # entries a signed head covers are gone: the log was cut short
    REWRITTEN = 4  # the log holds other entries than the engine signed: written again
    HEADS = 5  # the signed heads themselves, or an anchor kept elsewhere that they no longer match


@dataclass(frozen=True)
class Finding:
    problem: Problem
    where: str  # "session <id> entry <seq>" or "signed set <worker>/<n>"
    reason: str
    broken: Broken | None = None  # the chain's own finding, for BROKEN

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True)
class Anchor:
    """A signed set as kept elsewhere: at least its place and digest (a log line); with its body
    and signature (an `export-heads` line) its heads count as signed even if the store lost them."""

    worker: str
    n: int
    digest: str
    body: bytes | None = None
    signature: str | None = None


class UnreadableAnchor(ValueError):
    """A line of the anchors file that holds no anchor."""


def read_anchor(line: str) -> Anchor:
    """One anchor from a line: an `export-heads` line, or an operator's log line that ends in the
    JSON the engine logged (`audit heads signed {...}`)."""
    if len(line) > MAX_ANCHOR_LINE_CHARS:
        raise UnreadableAnchor("the line is too long")
    start = line.find("{")
    try:
        value = json.loads(line[start:]) if start >= 0 else None
        body = value.get("body") if isinstance(value, dict) else None
        if not isinstance(value, dict):
            raise TypeError
        return Anchor(str(value["worker"]), int(value["n"]), str(value["digest"]),
                      body.encode() if isinstance(body, str) else None,
                      str(value["signature"]) if "signature" in value else None)
    except (ValueError, KeyError, TypeError):
        raise UnreadableAnchor("no JSON with worker, n and digest") from None


@dataclass(frozen=True)
class _Signed:
    head: Head
    where: str  # the set that signed it


@dataclass
class Verdict:
    sessions: int = 0
    entries: int = 0
    anchored_sessions: int = 0  # sessions with a signed head
    unsigned_entries: int = 0  # entries after their session's last signed head (or with none)
    unanchored_sessions: int = 0  # sessions with entries and no signed head at all
    signed_sets: int = 0  # signed sets whose signature holds
    anchors: int = 0  # anchors checked
    findings: list[Finding] = field(default_factory=list)
    signed_upto: dict[str, int] = field(default_factory=dict)  # session -> its newest signed head's seq

    @property
    def broken(self) -> Broken | None:
        """The first broken link, if any."""
        return next((f.broken for f in self.findings if f.broken is not None), None)

    @property
    def exit_code(self) -> int:
        return max((f.problem.value for f in self.findings), default=0)


def _check_sets(sets: list[SignedHeads], engine: SignatureCheck | None,
                verdict: Verdict) -> dict[str, list[_Signed]]:
    """Each process's chain of signed sets; the heads of every set the engine signed."""
    signed: dict[str, list[_Signed]] = defaultdict(list)
    expected: dict[str, tuple[int, str | None]] = {}
    for stored in sets:
        where = f"signed set {stored.worker}/{stored.n}"
        n, prev = expected.get(stored.worker, (1, GENESIS))
        expected[stored.worker] = (stored.n + 1, stored.digest)
        if stored.n != n:
            verdict.findings.append(Finding(
                Problem.HEADS, where, f"sets {n} to {stored.n - 1} of this process are missing (deleted)"))
            prev = None
        try:
            body = read_body(stored.body)
        except UnreadableHeads as error:
            verdict.findings.append(Finding(Problem.HEADS, where, str(error)))
            continue
        if engine is not None and not engine.holds(stored.body, stored.signature):
            verdict.findings.append(Finding(
                Problem.HEADS, where, f"not signed by the engine key {engine.address}"))
            continue
        if (body.worker, body.n) != (stored.worker, stored.n):
            verdict.findings.append(Finding(Problem.HEADS, where, "its body names another set"))
        elif prev is not None and body.prev != prev:
            verdict.findings.append(Finding(
                Problem.HEADS, where, "it does not hold the digest of the set before it"))
        verdict.signed_sets += 1
        for head in body.heads:
            signed[head.session_id].append(_Signed(head, where))
    return signed


def _check_anchors(anchors: Iterable[Anchor], sets: list[SignedHeads], engine: SignatureCheck | None,
                   signed: dict[str, list[_Signed]], verdict: Verdict) -> None:
    stored = {(s.worker, s.n): s for s in sets}
    for anchor in anchors:
        verdict.anchors += 1
        where = f"signed set {anchor.worker}/{anchor.n}"
        held = stored.get((anchor.worker, anchor.n))
        if held is None:
            verdict.findings.append(Finding(
                Problem.HEADS, where, "anchored elsewhere, not in the store (deleted)"))
        elif held.digest != anchor.digest:
            verdict.findings.append(Finding(
                Problem.HEADS, where, "the store holds another set than the one anchored (rewritten)"))
        else:
            continue  # its heads are already counted
        if (anchor.body is None or anchor.signature is None or digest(anchor.body) != anchor.digest
                or (engine is not None and not engine.holds(anchor.body, anchor.signature))):
            continue
        try:
            body = read_body(anchor.body)
        except UnreadableHeads:
            continue
        for head in body.heads:  # what the engine signed then: the log must still match it
            signed[head.session_id].append(_Signed(head, f"{where} (anchored)"))


def _check_session(session_id: str, entries: list[StoredEntry], heads: list[_Signed],
                   verdict: Verdict) -> None:
    _, broken = verify_chain(entries)
    verdict.sessions += 1
    verdict.entries += len(entries)
    if broken is not None:
        verdict.findings.append(Finding(Problem.BROKEN, f"session {session_id} entry {broken.seq}",
                                        broken.reason, broken))
    by_seq = {entry.seq: entry for entry in entries}
    last = entries[-1].seq if entries else 0
    rewritten = truncated = None
    newest = max(heads, key=lambda s: s.head.seq, default=None)  # how far the engine signed
    if newest is not None and newest.head.seq > last:
        upto = newest.head.seq
        gone = (f"entry {upto} was deleted" if upto == last + 1
                else f"entries {last + 1} to {upto} were deleted")
        ends = f"it ends at entry {last}: {gone}" if last else "it holds no entry: its whole log was deleted"
        truncated = Finding(Problem.TRUNCATED, f"session {session_id} entry {upto}",
                            f"the engine signed the log up to entry {upto} ({newest.where}); {ends}")
    for signed in sorted(heads, key=lambda s: s.head.seq):
        entry = by_seq.get(signed.head.seq)
        if entry is not None and entry.hash != signed.head.hash and rewritten is None:
            rewritten = Finding(
                Problem.REWRITTEN, f"session {session_id} entry {signed.head.seq}",
                f"it is not the entry the engine signed ({signed.where}): the log was written again")
    for finding in (rewritten, truncated):
        if finding is not None:
            verdict.findings.append(finding)
    if heads:
        verdict.signed_upto[session_id] = max(s.head.seq for s in heads)
        verdict.anchored_sessions += 1
        verdict.unsigned_entries += max(0, last - max(s.head.seq for s in heads))
    elif entries:
        verdict.unanchored_sessions += 1
        verdict.unsigned_entries += len(entries)


async def verify_store(store: SessionStore, engine: str | None = None,
                       anchors: Iterable[Anchor] = (), only: str | None = None) -> Verdict:
    """Check every chain in the store (`only`: that session's alone, against every signed set).
    `engine`: the address the signed heads must be signed by (None: signatures are not checked,
    only the chains and what the sets say)."""
    verdict = Verdict()
    check = SignatureCheck(engine) if engine else None
    sets = await store.audit.all_heads()
    signed = _check_sets(sets, check, verdict)
    _check_anchors(anchors, sets, check, signed, verdict)
    sessions = [only] if only is not None else sorted(set(await store.audit.sessions()) | set(signed))
    for session_id in sessions:
        _check_session(session_id, await store.audit.entries(session_id), signed.get(session_id, []),
                       verdict)
    return verdict
