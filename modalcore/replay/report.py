"""Divergences in words: per diverging frame its type, the recording's line, the input just
before it, and the paths that differ as old → new; and a transcript of a recording."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..engine.record import Divergence, Replay, Step
from .screen import is_open, texts_on_screen, view_of
from ..wire.diff import INSERT, MOVE, PROPS, REMOVE, REPLACE
from .trees import ARROW, TreeTracker, json_diff, tree_diff, tree_lines
from .words import Describer, quote

TREE_FIELDS = ("tree", "ops")


@dataclass
class Explained:
    divergence: Divergence
    kind: str
    before: str  # the input just before, in words
    differences: list[str] = field(default_factory=list)

    def headline(self) -> str:
        where = f"line {self.divergence.line}" if self.divergence.line else "past the end of the recording"
        return f"diverged at frame {self.divergence.index} ({self.kind}) on {where}, {self.before}"

    def lines(self, *, full: bool = False) -> list[str]:
        out = [self.headline(), *(f"    {line}" for line in self.differences)]
        if full:
            out.append(f"    expected: {json.dumps(self.divergence.expected, sort_keys=True)}")
            out.append(f"    actual:   {json.dumps(self.divergence.actual, sort_keys=True)}")
        return out


def _before(step: Step | None, describer: Describer) -> str:
    if step is None:
        return "before any input"
    return f"after line {step.line}: {describer.describe(step.event)}"


def _frame_differences(want: Any, got: Any, trees: tuple[Any, Any, Any, Any]) -> list[str]:
    exp_before, act_before, exp_after, act_after = trees
    if want is None:
        return [f"today's engine sends one more frame: {_brief(got)}"]
    if got is None:
        return [f"today's engine no longer sends this frame: {_brief(want)}"]
    plain_want = {k: v for k, v in want.items() if k not in TREE_FIELDS}
    plain_got = {k: v for k, v in got.items() if k not in TREE_FIELDS}
    lines = list(json_diff(plain_want, plain_got))
    if want.get("t") in ("snapshot", "patch") or got.get("t") in ("snapshot", "patch"):
        already = set(tree_diff(exp_before, act_before))
        lines.extend(line for line in tree_diff(exp_after, act_after) if line not in already)
        if not any(line for line in lines if not line.startswith(("s:", "a:", "v:", "base:"))):
            # the trees after the frame agree (or differed already): name what the frames
            # themselves change, by node id, never by a position in the frame's JSON
            if want.get("tree") != got.get("tree"):
                lines.extend(tree_diff(_tree_or_none(want.get("tree")), _tree_or_none(got.get("tree"))))
            if want.get("ops") != got.get("ops"):
                lines.extend(ops_diff(want.get("ops"), got.get("ops")))
    return lines or ["(frames differ in a way json cannot name)"]


def _tree_or_none(tree: object) -> dict[str, object] | None:
    return tree if isinstance(tree, dict) else None


OP_NAMES = {INSERT: "inserts", REMOVE: "removes", MOVE: "moves", PROPS: "sets", REPLACE: "replaces"}


def ops_diff(want: object, got: object) -> list[str]:
    """Two patches' ops compared node by node: `id/prop (in the patch): old → new` for props
    one patch sets and the other does not (or sets otherwise), `id: the patch inserts … →
    (nothing)` for the other kinds of op."""
    by_node_want, by_node_got = _ops_by_node(want), _ops_by_node(got)
    lines: list[str] = []
    for node in [*by_node_want, *(n for n in by_node_got if n not in by_node_want)]:
        old, new = by_node_want.get(node, []), by_node_got.get(node, [])
        if old == new:
            continue
        old_props = _props_set(old)
        new_props = _props_set(new)
        if old_props != new_props:
            lines.extend(f"{node}/{line.replace(':', ' (in the patch):', 1)}"
                         for line in json_diff(old_props, new_props))
        old_rest = [_op_words(op) for op in old if op[0] != PROPS]
        new_rest = [_op_words(op) for op in new if op[0] != PROPS]
        if old_rest != new_rest:
            lines.append(f"{node}: the patch {'; '.join(old_rest) or 'leaves it'} {ARROW} "
                         f"{'; '.join(new_rest) or 'leaves it'}")
    return lines


def _ops_by_node(ops: object) -> dict[str, list[list[object]]]:
    found: dict[str, list[list[object]]] = {}
    for op in ops if isinstance(ops, list) else ():
        if isinstance(op, list) and len(op) >= 2 and isinstance(op[0], int):
            found.setdefault(str(op[1]), []).append(op)
    return found


def _props_set(ops: list[list[object]]) -> dict[str, object]:
    merged: dict[str, object] = {}
    for op in ops:
        if op[0] == PROPS and len(op) > 2 and isinstance(op[2], dict):
            merged.update(op[2])
    return merged


def _op_words(op: list[Any]) -> str:
    name = OP_NAMES.get(op[0], f"op {op[0]}")
    detail = op[2:] if op[0] in (MOVE, REMOVE) else [
        _summary_of(part) for part in op[2:]]
    return f"{name} {quote(detail, 80)}" if detail else name


def _summary_of(part: object) -> object:
    if isinstance(part, dict) and "t" in part:
        return {"id": part.get("id"), "t": part.get("t")}
    return part


def _brief(frame: object) -> str:
    if not isinstance(frame, dict):
        return quote(frame)
    rest = {k: v for k, v in frame.items() if k not in ("s", "a", *TREE_FIELDS)}
    return quote(rest, 120)


def explain(run: Replay) -> list[Explained]:
    """Every diverging frame of a replay, explained."""
    diverging = {d.index: d for d in run.divergences()}
    if not diverging:
        return []
    expected, actual = run.expected(), run.actual()
    want_tree, got_tree = TreeTracker(), TreeTracker()
    describer = Describer()
    explained = []
    for index in range(max(len(expected), len(actual))):
        want = expected[index][1] if index < len(expected) else None
        got = actual[index][0] if index < len(actual) else None
        before = (want_tree.tree, got_tree.tree)
        want_tree.feed(want)
        got_tree.feed(got)
        divergence = diverging.get(index)
        if divergence is not None:
            kind = (want or got or {}).get("t", "?")
            if want and got and want.get("t") != got.get("t"):
                kind = f"{want.get('t')} {ARROW} {got.get('t')}"
            differences = _frame_differences(want, got, (*before, want_tree.tree, got_tree.tree))
            explained.append(Explained(divergence, str(kind), _before(divergence.step, describer), differences))
        for frame in (want, got):
            if isinstance(frame, dict):
                describer.saw(frame)
    return explained


# ----- transcript and trees


def _clock(now: object, start: int) -> str:
    return f"+{(int(now) - start) / 1000:.1f}s" if isinstance(now, int) else ""


def transcript(run: Replay, source: dict[int, int] | None = None) -> list[str]:
    """The recording as readable steps: each input, the view it leads to, what changed on screen.
    `source` maps recording lines to the lines of the sequence that produced them."""
    lines: list[str] = []
    tracker = TreeTracker()
    describer = Describer()
    start = next((int(s.event["now"]) for s in run.steps if isinstance(s.event.get("now"), int)), 0)
    for step in run.steps:
        old_tree = tracker.tree
        old_texts, old_view, old_open = texts_on_screen(old_tree), view_of(old_tree), is_open(old_tree)
        said = describer.describe(step.event)
        notes: list[str] = []
        for _, frame in step.expected:
            tracker.feed(frame)
            describer.saw(frame)
            if frame.get("t") == "effect":
                req = frame.get("req") or {}
                notes.append(f"asks the browser: {req.get('method') or frame.get('kind')} ({frame.get('eid')})")
            if frame.get("t") == "intent_ack" and frame.get("status") != "ok":
                notes.append(f"refused: {frame.get('status')} {quote(frame.get('error', ''))}".rstrip())
        tree = tracker.tree
        view, opened, texts = view_of(tree), is_open(tree), texts_on_screen(tree)
        shown_line = source.get(step.line, step.line) if source is not None else step.line
        head = f"line {shown_line:<5} {_clock(step.event.get('now'), start):>9}  {said}"
        if tree is not None and (view != old_view or opened != old_open or old_tree is None):
            head += f" {ARROW} {view}" + ("" if opened else " (closed)")
        lines.append(head)
        if opened and (view != old_view or not old_open):
            if texts:
                lines.append("        on screen: " + " · ".join(quote(t, 60) for t in texts))
        elif opened:
            added = [t for t in texts if t not in old_texts]
            removed = [t for t in old_texts if t not in texts]
            lines.extend(f"        + {quote(t, 70)}" for t in added)
            lines.extend(f"        - {quote(t, 70)}" for t in removed)
        lines.extend(f"        {note}" for note in notes)
    return lines


def tree_at(run: Replay, line: int, source: dict[int, int] | None = None) -> list[str]:
    """The tree as recorded after the input at or before `line` (and its frames), then how
    today's engine's tree differs there."""
    steps = [step for step in run.steps if step.line <= line]
    if not steps:
        raise ValueError(f"no input at or before line {line}")
    recorded, today = TreeTracker(), TreeTracker()
    for step in steps:
        for _, frame in step.expected:
            recorded.feed(frame)
        for frame in step.actual:
            today.feed(frame)
    step = steps[-1]
    describer = Describer()
    for earlier in steps:
        for _, frame in earlier.expected:
            describer.saw(frame)
    shown_line = source.get(step.line, step.line) if source is not None else step.line
    out = [f"tree after line {shown_line}: {describer.describe(step.event)}", *tree_lines(recorded.tree)]
    differences = tree_diff(recorded.tree, today.tree)
    if differences:
        out.append("today's engine draws it differently:")
        out.extend(f"    {d}" for d in differences)
    return out
