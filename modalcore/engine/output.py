"""What one session input gives: the frames to send and the commands to run."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..wire.serverframes import ServerFrame
from .interpret import RuntimeCmd


@dataclass
class Output:
    frames: list[ServerFrame] = field(default_factory=list)
    cmds: list[RuntimeCmd] = field(default_factory=list)  # run by engine/interpret.py

    def extend(self, other: Output) -> None:
        self.frames.extend(other.frames)
        self.cmds.extend(other.cmds)
