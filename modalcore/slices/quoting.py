"""A quote that follows a form (the swap's and the Buy form's): any edit forgets the quote; a
form that can be quoted asks for a new one through its service call, at once or (typing) after
`delay_ms` of quiet on the form's debounce timer; the timer and the answer count only for the
form as it still is (its key), so an answer for a form that changed since is dropped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, Cmd, StartTimer
from ..core.msg import Msg

if TYPE_CHECKING:
    from .model import Model, Step


@dataclass(frozen=True)
class Quoting:
    timer: str  # the debounce timer's key
    edit: Callable[..., Model]  # (model, **changes) -> model with the form's state changed
    quotable: Callable[[Model], bool]
    key: Callable[[Model], str]  # the form as it is
    waiting: Callable[[Model], str | None]  # the key a quote is coming for (the state's `quoting`)
    call: Callable[[Model], Cmd | None]  # the service call (or its refusal) asking for the form's quote
    due: Callable[[str], Msg]  # the timer's message for the form `key`

    def requote(self, model: Model, delay_ms: int = 0) -> Step:
        """The form changed: forget the quote, and ask for the new one (after `delay_ms` of quiet)."""
        model = self.edit(model, quote=None, quote_error=None, error=None, quoting=None)
        if not self.quotable(model):
            return model, [CancelTimer(self.timer)]
        key = self.key(model)
        model = self.edit(model, quoting=key)
        if delay_ms:
            return model, [StartTimer(self.timer, delay_ms, self.due(key))]
        call = self.call(model)
        return (model, [CancelTimer(self.timer), call]) if call is not None else (self.edit(model, quoting=None), [])

    def current(self, model: Model, key: str) -> bool:
        """A timer or an answer for `key` is for the form as it is, and the quote it waits for."""
        return key == self.key(model) and self.waiting(model) == key

    def on_due(self, model: Model, key: str) -> Step:
        if not self.current(model, key):
            return model, []
        call = self.call(model)
        return (model, [call]) if call is not None else (self.edit(model, quoting=None), [])


__all__ = ["Quoting"]
