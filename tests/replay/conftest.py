"""Shared by the replay tests: the fixture folders, an engine changed on purpose, copies."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modalcore.slices import snack

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = ROOT / "fixtures" / "sessions"
SEQUENCES = ROOT / "fixtures" / "sequences"
COPIED = "Address copied"
RENAMED = "Copied to clipboard"


@pytest.fixture
def renamed_snack(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Today's engine says 'Copied to clipboard' where a changed rule would say 'Address copied'."""
    original = snack.show

    def show(model: Any, message: str, *args: Any, **kwargs: Any) -> Any:
        return original(model, RENAMED if message == COPIED else message, *args, **kwargs)

    monkeypatch.setattr(snack, "show", show)
    yield


@pytest.fixture
def sessions_copy(tmp_path: Path) -> Path:
    """The recorded fixtures, in a folder the test may rewrite."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    for path in SESSIONS.glob("*.jsonl"):
        shutil.copy(path, folder / path.name)
    return folder
