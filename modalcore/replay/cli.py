"""`python -m modalcore replay PATH...`: recordings and hand-written sequences, files or folders.

Prints one line per file and the totals; exit status 0 when all replayed exactly and every
expectation held, 1 when one diverged or a sequence's step failed, 2 when a file is missing or
malformed (not JSON, not a step, a step's fields of the wrong type) or `--tree-at` names no line
of the file (EXIT_* below).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..core.plural import counted
from ..server.config import load_config, resolve_secret
from ..slices.handoff import use_link_key
from ..engine.record import Replay, read_lines, replay_file, run_events, updated_lines
from .report import explain, transcript, tree_at
from .sequence import SequenceError, is_sequence, run_sequence


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="recordings (.jsonl) or sequences, or folders holding them")
    parser.add_argument("--all", action="store_true", help="explain every diverging frame, not the first")
    parser.add_argument("--full", action="store_true", help="also print the raw expected and actual frames")
    parser.add_argument("--update", action="store_true",
                        help="re-save the expected frames from today's engine and say what changed")
    parser.add_argument("--transcript", action="store_true", help="print each recording as readable steps")
    parser.add_argument("--tree-at", type=int, metavar="LINE",
                        help="print the tree after the input at LINE (one file)")
    parser.add_argument("--config", metavar="FILE",
                        help="the engine's config: its secret draws 'Continue on your phone' links as the "
                             "engine did, so a session that offered one (or had a phone) replays exactly")


def use_engine_links(config_path: str) -> str:
    """Draw links with the engine's link key (slices/handoff.use_link_key, from its secret, as
    server/app.py does); a problem in words, or "". Never creates a secret file."""
    try:
        config = load_config(config_path)
    except (OSError, ValueError) as error:
        return f"cannot read the config {config_path}: {error}"
    if not config.secret and not config.path(config.secret_file).is_file():
        return f"the config {config_path} names no secret (and its secret_file does not exist)"
    use_link_key(resolve_secret(config))
    return ""


def _files(paths: list[str]) -> Iterator[Path]:
    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        else:
            yield path


@dataclass
class Totals:
    files: int = 0
    ok: int = 0
    diverged: int = 0
    updated: int = 0
    bad: int = 0
    frames: int = 0

    def line(self) -> str:
        parts = [counted(self.files, "file"), f"{self.ok} ok"]
        if self.diverged:
            parts.append(f"{self.diverged} diverged or failed")
        if self.updated:
            parts.append(f"{self.updated} updated")
        if self.bad:
            parts.append(f"{self.bad} unreadable")
        return f"total: {', '.join(parts)} ({counted(self.frames, 'frame')})"

    def status(self) -> int:
        return 2 if self.bad else 1 if self.diverged else 0


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    files = list(_files(args.paths))
    if args.tree_at is not None and len(files) != 1:
        print("replay: --tree-at takes one file", file=err)
        return 2
    if args.tree_at is not None and files[0].is_file():
        problem = _tree_at_problem(files[0], args.tree_at)
        if problem:
            print(f"replay: {problem}", file=err)
            return 2
    problem = use_engine_links(args.config) if getattr(args, "config", None) else ""
    if problem:
        print(f"replay: {problem}", file=err)
        return 2
    totals = Totals()
    for path in files:
        totals.files += 1
        if not path.is_file():
            print(f"replay: no such file {path}", file=err)
            totals.bad += 1
            continue
        try:
            _one(path, args, totals, out)
        except BrokenPipeError:
            raise
        except (ValueError, KeyError, OSError) as error:
            print(f"replay: bad {_kind(path)} {path}: {error}", file=err)
            totals.bad += 1
    if not files:
        print("replay: no recordings found", file=err)
        return 2
    if args.tree_at is None:
        print(totals.line(), file=out)
    return totals.status()


def _kind(path: Path) -> str:
    """What a file that could not be run was meant to be, for its error line."""
    try:
        return "sequence" if is_sequence(path) else "recording"
    except (ValueError, OSError):
        return "recording"


def _tree_at_problem(path: Path, line: int) -> str:
    """Why `--tree-at line` names no line of the file ("" when it does)."""
    try:
        with path.open(encoding="utf-8") as lines:
            count = sum(1 for _ in lines)
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot read {path}: {error}"
    if line < 1:
        return f"--tree-at {line}: lines are numbered from 1"
    if line > count:
        return f"--tree-at {line} is past the end of {path} ({count} lines)"
    return ""


def _one(path: Path, args: argparse.Namespace, totals: Totals, out: TextIO) -> None:
    if is_sequence(path):
        _sequence(path, args, totals, out)
        return
    run_ = replay_file(path)
    _show(run_, args, out)
    if args.tree_at is not None:
        return
    totals.frames += run_.frame_count()
    explained = explain(run_)
    if not explained:
        totals.ok += 1
        print(f"ok        {path}: {counted(run_.frame_count(), 'frame')}", file=out)
        return
    if args.update:
        path.write_text("".join(updated_lines(run_)), encoding="utf-8")
        totals.updated += 1
        print(f"updated   {path}: {len(explained)} of {run_.frame_count()} frames changed, "
              f"now {counted(len(run_.actual()), 'frame')}", file=out)
        for item in explained:
            print("\n".join(f"    {line}" for line in item.lines(full=args.full)), file=out)
        return
    totals.diverged += 1
    if run_.frame_count() == 0:
        print(f"DIVERGED  {path}: no expected frames recorded; --update saves today's "
              f"{len(run_.actual())} (a hand-written sequence has no \"k\" fields)", file=out)
        return
    print(f"DIVERGED  {path}: {len(explained)} of {run_.frame_count()} frames differ", file=out)
    for item in explained if args.all else explained[:1]:
        print("\n".join(f"    {line}" for line in item.lines(full=args.full)), file=out)
    if len(explained) > 1 and not args.all:
        more = len(explained) - 1
        print(f"    … {more} more diverging frame{'s' if more > 1 else ''} (--all lists every one)", file=out)


def _show(run_: Replay, args: argparse.Namespace, out: TextIO) -> None:
    if args.transcript:
        print("\n".join(transcript(run_)), file=out)
    if args.tree_at is not None:
        print("\n".join(tree_at(run_, args.tree_at)), file=out)


def _sequence(path: Path, args: argparse.Namespace, totals: Totals, out: TextIO) -> None:
    try:
        result = run_sequence(path)
    except SequenceError as error:
        raise ValueError(str(error)) from None
    replayed = run_events(result.events)
    if args.transcript:
        print("\n".join(transcript(replayed, result.source)), file=out)
    if args.tree_at is not None:
        print("\n".join(tree_at(replayed, result.recording_line(args.tree_at), result.source)), file=out)
        return
    frames = sum(1 for _, event in result.events if event.get("k") == "out")
    totals.frames += frames
    if result.failure is None:
        totals.ok += 1
        print(f"ok        {path}: {counted(result.steps, 'step')}, "
              f"{counted(result.expectations, 'expectation')} held", file=out)
        return
    totals.diverged += 1
    line, message = result.failure
    print(f"FAILED    {path} line {line}: {message}", file=out)


__all__ = ["add_arguments", "run", "read_lines"]
