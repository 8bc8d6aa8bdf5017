"""`python -m modalcore doctor replay CODE --project P --record-dir DIR`: the redacted recording a
visitor's support code names (issue 44; `modalcore/support.py`), written to a file that
`python -m modalcore inspect` steps through. A refusal prints its reason and exits 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..support import SupportRefusal, support_replay

WORDS = {"malformed_support_code": "not a support code (four, four and four letters or digits)",
         "unknown_support_code": "unknown support code for this project"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    replay = actions.add_parser("replay", help="a support code into a redacted recording to inspect")
    replay.add_argument("code", help="the code the visitor copied (XXXX-XXXX-XXXX)")
    replay.add_argument("--project", required=True, help="the project the visitor's page belongs to")
    replay.add_argument("--record-dir", required=True, metavar="DIR", help="serve --record-dir's folder")
    replay.add_argument("--out", metavar="FILE", help="where to write it (default support-CODE.jsonl)")


def run(args: argparse.Namespace) -> int:
    found = support_replay(Path(args.record_dir), args.project, args.code)
    if isinstance(found, SupportRefusal):
        print(f"doctor: {WORDS[found.reason]} ({found.reason})", file=sys.stderr)
        return 2
    out = Path(args.out or f"support-{args.code.strip().upper()}.jsonl")
    out.write_text("\n".join(found) + "\n", encoding="utf-8")
    print(f"ok: {out} ({len(found)} lines, redacted); step through it: "
          f"python -m modalcore inspect {out.parent}")
    return 0
