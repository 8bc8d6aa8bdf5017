""""Export as test": a pytest file that replays a recording up to a step with today's engine
and asserts the tree there is the one recorded (the view, open or closed, the texts)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..replay.screen import is_open, texts_on_screen, view_of
from .recording import Inspection

TEMPLATE = '''"""Exported by `python -m modalcore inspect` from {source}: replays it up to step {index}
({said}) and checks the modal there is the one recorded."""

from pathlib import Path

from modalcore.inspect.recording import tree_after_step
from modalcore.replay.screen import is_open, texts_on_screen, view_of

RECORDING = (Path(__file__).parent / {path!r}).resolve()


def test_{name}_at_step_{index}_shows_{view_name}() -> None:
    tree = tree_after_step(RECORDING, {index})
    assert view_of(tree) == {view!r}
    assert is_open(tree) is {opened!r}
    assert texts_on_screen(tree) == {texts!r}
'''


def _ident(text: str) -> str:
    return re.sub(r"[^0-9a-zA-Z_]+", "_", text).strip("_").lower() or "recording"


def export_test(inspection: Inspection, index: int, folder: Path) -> Path:
    """Write the test file into `folder`; its path."""
    if not 0 <= index < len(inspection.steps):
        raise ValueError(f"no step {index}")
    step = inspection.steps[index]
    tree = step.recorded_tree
    name = _ident(inspection.path.stem)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"test_{name}_step_{index}.py"
    text = TEMPLATE.format(
        source=inspection.path.name, index=index, said=step.said.replace('"', "'")[:80],
        path=os.path.relpath(inspection.path.resolve(), folder.resolve()), name=name,
        view_name=_ident(view_of(tree) or "nothing"), view=view_of(tree), opened=is_open(tree),
        texts=texts_on_screen(tree),
    )
    target.write_text(text, encoding="utf-8")
    return target
