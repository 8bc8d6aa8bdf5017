"""Copying a text to the visitor's clipboard, one rule wherever the modal offers it (the address
on Account, the support code on a failure screen, the WalletConnect link): a `clipboard` effect
the browser answers as the caller's own reply message, then a snackbar that says it was copied,
or that it failed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import Effect, EffectReply
from . import snack

if TYPE_CHECKING:
    from .model import Model, Step

COPY_TIMEOUT_MS = 5000


def copy(model: Model, text: str, reply: type[EffectReply]) -> Step:
    """Ask the browser to copy `text`; its answer comes back as `reply`."""
    model, eid = model.next_id("e")
    return model, [Effect(eid, "clipboard", {"text": text}, reply, timeout_ms=COPY_TIMEOUT_MS)]


def copied(model: Model, ok: bool, done: str) -> Step:
    """The browser's answer: `done` (what was copied, in words) or that the copy failed."""
    if ok:
        return snack.show(model, done)
    return snack.show_error(model, "Failed to copy")
