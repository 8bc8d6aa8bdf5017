"""Issue 41 item 2: a handler is typed by its message. `On(X, on_x)` and `Guard(X, refuse_x)`
pass mypy only when the function takes an `X` (or a type `X` is a subclass of); registered under
another message type, they fail the type check. The snippet below is checked by mypy with the
project's strict configuration (run from the repository, so its cache from `make typecheck` is
reused): the right registrations pass and each wrong one is an error on its own line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = '''\
from __future__ import annotations

from dataclasses import dataclass

from modalcore.core.msg import Msg
from modalcore.core.shape import Guard, On, Slice
from modalcore.slices.model import Model, Step


@dataclass(frozen=True)
class Pinged(Msg):
    pass


@dataclass(frozen=True)
class Ponged(Msg):
    pass


def on_pinged(model: Model, msg: Pinged, now: int) -> Step:
    return model, []


def on_any(model: Model, msg: Msg, now: int) -> Step:
    return model, []


def refuse_pinged(model: Model, msg: Pinged) -> str | None:
    return None


RIGHT = Slice("right", (On(Pinged, on_pinged), On(Ponged, on_any), On(Ponged, lambda model, msg, now: (model, []))),
              guards=(Guard(Pinged, refuse_pinged),))
WRONG_HANDLER = Slice("wrong", (On(Ponged, on_pinged),))  # line 34
WRONG_GUARD = Slice("wrong", guards=(Guard(Ponged, refuse_pinged),))  # line 35
'''


def _mypy(tmp_path: Path) -> str:
    fixture = tmp_path / "registrations.py"
    fixture.write_text(SNIPPET)
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--no-error-summary", str(fixture)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr  # 2 would be mypy itself failing
    return done.stdout


def test_rule_a_handler_or_guard_registered_under_another_message_type_fails_mypy(tmp_path: Path) -> None:
    errors = [line for line in _mypy(tmp_path).splitlines() if "registrations.py:" in line and ": error:" in line]
    lines = sorted(int(match.group(1)) for line in errors if (match := re.search(r":(\d+): error:", line)))
    assert lines == [34, 35], errors
    assert 'Argument 2 to "On" has incompatible type' in errors[0], errors
    assert "Pinged" in errors[0] and "Ponged" in errors[0], errors
    assert 'Argument 2 to "Guard" has incompatible type' in errors[1], errors
