"""Languages rendered by the engine (issue 20, part 4): catalogues, the render-edge pass,
locale choice. `python -m modalcore i18n check` lists what a catalogue lacks."""

from __future__ import annotations

from .catalog import ENGLISH, LANGUAGES, RIGHT_TO_LEFT, direction, resolve
from .localize import localize

__all__ = ["ENGLISH", "LANGUAGES", "RIGHT_TO_LEFT", "direction", "localize", "resolve"]
