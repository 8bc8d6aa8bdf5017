"""behaviour.md §3 Theme and §9 modal theme defaults, as sent in `theme` frames."""

from __future__ import annotations

from collections.abc import Callable

from modalcore.enginetest import Harness

SPEC_DEFAULTS = {
    "--w3m-modal-width": "360px",
    "--w3m-font-size-master": "10px",
    "--w3m-border-radius-master": "4px",
    "--w3m-z-index": "999",
    "--w3m-color-mix-strength": "0%",
}


def test_theme_defaults_to_dark_mode(h: Harness) -> None:
    assert h.model.theme.mode == "dark"
    assert h.theme()["mode"] == "dark"


def test_theme_frame_carries_the_spec_default_variables(h: Harness) -> None:
    variables = h.theme()["vars"]
    assert {key: variables[key] for key in SPEC_DEFAULTS} == SPEC_DEFAULTS


def test_theme_frame_comes_before_the_first_snapshot(h: Harness) -> None:
    kinds = [f["t"] for f in h.frames]
    assert kinds.index("theme") < kinds.index("snapshot")


def test_theme_options_set_mode_and_variables(make: Callable[..., Harness]) -> None:
    h = make(options={"networks": ["eip155:1"], "themeMode": "light",
                      "themeVariables": {"--w3m-accent": "#ff0000", "--w3m-z-index": 50}})
    frame = h.theme()
    assert frame["mode"] == "light"
    assert frame["vars"]["--w3m-accent"] == "#ff0000"
    assert frame["vars"]["--w3m-z-index"] == "50"
    assert frame["vars"]["--w3m-modal-width"] == "360px"


def test_host_set_theme_mode_changes_the_theme_frame(h: Harness) -> None:
    assert h.host("set_theme_mode", mode="light") == "ok"
    assert [f["t"] for f in h.last] == ["intent_ack", "theme"]
    assert h.theme()["mode"] == "light"
    assert h.theme()["vars"] == {**h.theme()["vars"], **SPEC_DEFAULTS}


def test_host_set_theme_mode_to_the_same_mode_sends_no_theme_frame(h: Harness) -> None:
    h.host("set_theme_mode", mode="dark")
    assert [f["t"] for f in h.last] == ["intent_ack"]


def test_host_set_theme_variables_merges_into_the_theme_frame(h: Harness) -> None:
    h.host("set_theme_variables", variables={"--w3m-accent": "#00ff00", "not-a-w3m-var": "x"})
    variables = h.theme()["vars"]
    assert variables["--w3m-accent"] == "#00ff00"
    assert "not-a-w3m-var" not in variables
    assert {key: variables[key] for key in SPEC_DEFAULTS} == SPEC_DEFAULTS
