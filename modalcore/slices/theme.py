"""Theme mode and variables (SPEC §3 Theme, SPEC §9 modal theme defaults)."""

from __future__ import annotations

from dataclasses import dataclass
from ..core.evolve import replace
from typing import TYPE_CHECKING, Literal

from ..core.shape import Handler, Slice
from ..core.msg import Msg

if TYPE_CHECKING:
    from .model import Model, Step

ThemeMode = Literal["light", "dark"]

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
        if key.startswith("--w3m-") and len(key) <= 64 and len(str(value)) <= 256
    )


def on_set_mode(model: Model, msg: HostSetThemeMode, now: int) -> Step:
    return replace(model, theme=replace(model.theme, mode=msg.mode)), []


def on_set_variables(model: Model, msg: HostSetThemeVariables, now: int) -> Step:
    merged = dict(model.theme.variables)
    merged.update(dict(msg.variables))
    return replace(model, theme=replace(model.theme, variables=_clean(dict(merged)))), []


HANDLERS: dict[type[Msg], Handler] = {HostSetThemeMode: on_set_mode, HostSetThemeVariables: on_set_variables}

SLICE = Slice("theme", HANDLERS)
