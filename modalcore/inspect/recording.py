"""One recording, inspected: each input with what it produced as recorded and as today's engine
produces it (trees, frames and their bytes, the model), and where the two first differ."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..slices.model import Model, model_to_data
from ..engine.replay_companion import COMPANION, to_companion
from ..engine.record import INPUTS, feed_input, read_lines, start_session
from ..replay.screen import is_open, view_of
from ..replay.sequence import SequenceError, is_sequence, run_sequence
from ..replay.trees import TreeTracker, json_diff, tree_diff
from ..replay.words import Describer
from ..wire.codec import encode


@dataclass
class InspectedStep:
    index: int
    line: int
    event: dict[str, object]
    kind: str
    said: str
    at: int  # ms since the recording began
    recorded: list[dict[str, object]] = field(default_factory=list)  # frames as recorded
    replayed: list[dict[str, object]] = field(default_factory=list)  # frames today's engine sent
    recorded_tree: dict[str, object] | None = None  # the client's tree after this step
    replayed_tree: dict[str, object] | None = None
    theme: dict[str, object] = field(default_factory=dict)
    model: Model | None = None  # today's engine's model after this step
    error: str = ""  # the engine refused the recorded input

    @property
    def diverges(self) -> bool:
        return self.recorded != self.replayed

    def summary(self) -> dict[str, object]:
        return {
            "index": self.index, "line": self.line, "kind": self.kind, "said": self.said,
            "at": self.at, "frames": len(self.recorded),
            "bytes": sum(len(encode(f)) for f in self.recorded),
            "view": view_of(self.recorded_tree), "open": is_open(self.recorded_tree),
            "diverges": self.diverges,
        }


@dataclass
class Inspection:
    path: Path
    header: dict[str, object] | None
    project: str
    origin: str
    steps: list[InspectedStep]
    problem: str = ""  # the recording could not be read to its end
    failed: str = ""  # a hand-written sequence: the step that failed, and how
    failed_line: int | None = None  # that sequence line
    sequence: bool = False  # steps are numbered by the sequence line behind them

    @property
    def failed_at(self) -> int | None:
        """The step a failing sequence stopped at: the last one made by a line at or before
        the failing one (an expectation makes no step: it checks the one before it)."""
        if self.failed_line is None or not self.steps:
            return None
        made = [s.index for s in self.steps if s.line <= self.failed_line]
        return made[-1] if made else 0

    @property
    def first_divergence(self) -> int | None:
        return next((s.index for s in self.steps if s.diverges), None)

    @property
    def outcome(self) -> str:
        if self.problem:
            return f"unreadable: {self.problem}"
        if self.failed:
            return f"fails at {self.failed}"
        first = self.first_divergence
        return "replays identically" if first is None else f"diverges at step {first}"

    def listing(self) -> dict[str, Any]:
        return {"name": self.path.name, "title": (self.header or {}).get("name") or self.path.stem,
                "project": self.project, "origin": self.origin, "length": len(self.steps),
                "outcome": self.outcome, "diverges_at": self.first_divergence,
                "ok": not self.problem and not self.failed and self.first_divergence is None}

    def step_detail(self, index: int) -> dict[str, object]:
        step = self.steps[index]
        return {
            **step.summary(), "event": step.event, "error": step.error,
            "recorded_tree": step.recorded_tree, "replayed_tree": step.replayed_tree,
            "theme": step.theme,
            "recorded_frames": [_frame_row(f) for f in step.recorded],
            "replayed_frames": [_frame_row(f) for f in step.replayed],
            "tree_diff": tree_diff(step.recorded_tree, step.replayed_tree),
        }

    def model_diff(self, a: int, b: int) -> list[str]:
        """Today's engine's model at step a against step b, leaf by leaf."""
        old, new = self.steps[a].model, self.steps[b].model
        return list(json_diff(_plain(old), _plain(new)))


def _plain(model: Model | None) -> object:
    return json.loads(json.dumps(model_to_data(model), default=str)) if model is not None else None


def _frame_row(frame: dict[str, object]) -> dict[str, object]:
    return {"t": frame.get("t"), "s": frame.get("s"), "bytes": len(encode(frame)),
            "frame": frame if frame.get("t") not in ("snapshot",) else {**frame, "tree": "…"}}


def _kind(event: dict[str, Any]) -> str:
    kind = str(event.get("k"))
    if kind == "in":
        return str((event.get("frame") or {}).get("t", "in"))
    if kind == "msg":
        msg = event.get("msg") or {}
        name, data = msg.get("type"), msg.get("data") or {}
        if name == "CallSettled":
            return "result"
        if name == "EffectSettled":
            timer = data.get("timed_out", data.get("error_message") == "timeout")  # older recordings: the text
            return "timer" if timer else "result"
        return "timer"
    return kind


def inspect_file(path: Path) -> Inspection:
    """Replay the recording with today's engine, keeping everything the inspector shows. A
    hand-written sequence (`replay`'s format, replay/sequence.py) is first run by the same
    reader `replay` uses; its session's recording is inspected, each step numbered by the
    sequence line that made it."""
    try:
        sequence = is_sequence(path)
    except (OSError, ValueError) as error:
        return Inspection(path, None, "", "", [], str(error))
    if not sequence:
        return _inspect_events(path, read_lines(path))
    try:
        result = run_sequence(path)
    except (OSError, SequenceError) as error:
        return Inspection(path, None, "", "", [], str(error))
    events = ((result.source.get(line, 0), event) for line, event in result.events)
    inspection = _inspect_events(path, events)
    inspection.sequence = True
    if result.failure is not None:
        inspection.failed = f"line {result.failure[0]}: {result.failure[1]}"
        inspection.failed_line = result.failure[0]
    return inspection


def _inspect_events(path: Path, events: Iterable[tuple[int, dict[str, Any]]]) -> Inspection:
    steps: list[InspectedStep] = []
    header: dict[str, Any] | None = None
    project = origin = problem = ""
    session: Any = None
    recorded, replayed = TreeTracker(), TreeTracker()
    describer = Describer()
    theme: dict[str, Any] = {}
    start: int | None = None
    try:
        for line, event in events:
            kind = event.get("k")
            if kind == "header":
                header = event
                continue
            if kind == "out":
                if not steps:
                    raise ValueError(f"line {line}: an output before any input")
                frame = event.get("frame")
                if isinstance(frame, dict) and event.get("to") == COMPANION:
                    steps[-1].recorded.append(to_companion(frame))  # the phone's: not the host page's tree
                elif isinstance(frame, dict):
                    _take(steps[-1], frame, recorded, describer)
                    if frame.get("t") == "theme":
                        theme = {"mode": frame.get("mode"), "vars": frame.get("vars") or {}}
                    steps[-1].theme = theme
                continue
            if kind not in INPUTS:
                raise ValueError(f"line {line}: unknown event kind {kind!r}")
            stamp = event.get("now")
            now = stamp if isinstance(stamp, int) else 0
            if start is None:
                start = now
            step = InspectedStep(len(steps), line, event, _kind(event), describer.describe(event),
                                 now - start, recorded_tree=recorded.tree,
                                 replayed_tree=replayed.tree, theme=theme)
            steps.append(step)
            if kind == "join":
                session = start_session(event)
                frame = event.get("frame") or {}
                project, origin = str(frame.get("project", "")), str(event.get("origin", ""))
            elif session is None:
                raise ValueError("a recording starts with a join event")
            else:
                try:
                    step.replayed = json.loads(json.dumps(feed_input(session, event)))
                except (KeyError, TypeError, ValueError) as error:
                    step.error = f"the engine refused this input: {error!r}"
                for frame in step.replayed:
                    replayed.feed(frame)
                step.replayed_tree = replayed.tree
            step.model = session.model if session is not None else None
    except (OSError, ValueError) as error:
        problem = str(error)
    return Inspection(path, header, project, origin, steps, problem)


def _take(step: InspectedStep, frame: dict[str, object], tracker: TreeTracker,
          describer: Describer) -> None:
    step.recorded.append(frame)
    tracker.feed(frame)
    describer.saw(frame)
    step.recorded_tree = tracker.tree


def tree_after_step(path: Path, index: int) -> dict[str, object] | None:
    """The tree today's engine draws after the recording's input number `index` (exported
    tests replay up to there and assert on it)."""
    inspection = inspect_file(path)
    if inspection.problem:
        raise ValueError(inspection.problem)
    return inspection.steps[index].replayed_tree
