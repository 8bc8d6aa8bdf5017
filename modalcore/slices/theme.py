"""Theme mode and variables (behaviour.md §3 Theme, behaviour.md §9 modal theme defaults)."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING, Any, Literal

from ..core.msg import Msg
from ..core.shape import Guard, On, Slice
from ..rules import limits as L

if TYPE_CHECKING:
    from .model import Model, Step

ThemeMode = Literal["light", "dark"]
PREFIX = "--w3m-"  # other names are ignored (not CSS the modal reads)

DEFAULT_VARIABLES: dict[str, str] = {
    "--w3m-modal-width": "360px",
    "--w3m-font-size-master": "10px",
    "--w3m-border-radius-master": "4px",
    "--w3m-z-index": "999",
    "--w3m-color-mix-strength": "0%",
    "--w3m-accent": "#3396ff",
    "--w3m-color-mix": "#000000",
    "--w3m-font-family": "Inter, 'Segoe UI', system-ui, -apple-system, sans-serif",
}


@dataclass(frozen=True)
class ThemeState:
    mode: ThemeMode = "dark"
    variables: tuple[tuple[str, str], ...] = ()

    def css_variables(self) -> dict[str, str]:
        merged = dict(DEFAULT_VARIABLES)
        merged.update(self.variables)
        return merged


@dataclass(frozen=True)
class HostSetThemeMode(Msg):
    mode: ThemeMode


@dataclass(frozen=True)
class HostSetThemeVariables(Msg):
    variables: tuple[tuple[str, str], ...]


def from_options(mode: ThemeMode, variables: dict[str, str | int]) -> ThemeState:
    return ThemeState(mode=mode, variables=_clean(variables))


def _clean(variables: dict[str, str | int]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (key, str(value))
        for key, value in sorted(variables.items())
        if key.startswith(PREFIX) and len(key) <= L.THEME_KEY_CHARS and len(str(value)) <= L.THEME_VALUE_CHARS
    )


def on_set_mode(model: Model, msg: HostSetThemeMode, now: int) -> Step:
    return replace(model, theme=replace(model.theme, mode=msg.mode)), []


def _merged(model: Model, msg: HostSetThemeVariables) -> tuple[tuple[str, str], ...]:
    merged: dict[str, str | int] = dict(model.theme.variables)
    merged.update(dict(msg.variables))
    return _clean(merged)


def refuse_variables(model: Model, msg: HostSetThemeVariables) -> str | None:
    """The variables set call after call are bounded in total, not only per call: a call that
    would hold more than MAX_THEME_VARIABLES is refused whole (PROTOCOL.md, "Bounds")."""
    for key, value in msg.variables:
        if len(key) > L.THEME_KEY_CHARS or len(value) > L.THEME_VALUE_CHARS:
            return (f"theme variables: names are at most {L.THEME_KEY_CHARS} characters, "
                    f"values at most {L.THEME_VALUE_CHARS}")
    count = len(_merged(model, msg))
    if count > L.MAX_THEME_VARIABLES:
        return (f"theme variables: at most {L.MAX_THEME_VARIABLES} in a session "
                f"(this call would make {count})")
    return None


def on_set_variables(model: Model, msg: HostSetThemeVariables, now: int) -> Step:
    if refuse_variables(model, msg) is not None:
        return model, []  # refused at the edge already; kept bounded whatever the caller
    return replace(model, theme=replace(model.theme, variables=_merged(model, msg))), []


HANDLERS = (On(HostSetThemeMode, on_set_mode), On(HostSetThemeVariables, on_set_variables))
# Checked before a client's input is applied: a reason refuses it (engine/update.py, `refusal`).
GUARDS = (Guard(HostSetThemeVariables, refuse_variables),)

SLICE = Slice("theme", HANDLERS, guards=GUARDS)
