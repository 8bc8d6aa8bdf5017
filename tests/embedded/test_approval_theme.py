"""The approval frame follows the visitor's theme (behaviour.md §3 Theme: themeMode light or dark,
themeVariables), as the session holds it: the host's createModal options and its later
setThemeMode / setThemeVariables calls. A theme value that could break out of the frame's style
sheet is dropped (the default stands). Chromium: tests/e2e/test_embedded_browser.py
`test_the_approval_frame_follows_the_host_theme_in_both_modes`."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from modalcore_dev.devmail import LocalSmtpServer
from modalcore.enginetest import Harness
from modalcore.server.approval_theme import plain_value, properties, style

from .world import EmailWorld, open_wallet


def _session(**options: object) -> Harness:
    return Harness(options={"networks": ["eip155:31337"], **options}, is_open=True)


def test_the_default_theme_is_dark() -> None:
    h = _session()
    props = properties(h.model.theme)
    assert (props["base"], props["fg"], props["accent"]) == ("#191a1a", "#e4e7e7", "#3396ff")
    assert style(h.model.theme).startswith(":root{color-scheme:dark;")


def test_light_mode_and_the_variables_from_the_host_options() -> None:
    h = _session(themeMode="light", themeVariables={
        "--w3m-accent": "#ff00aa", "--w3m-font-family": "Georgia, 'Times New Roman', serif",
        "--w3m-border-radius-master": "1px", "--w3m-font-size-master": "12px",
        "--w3m-color-mix": "#00ff00", "--w3m-color-mix-strength": "20%"})
    props = properties(h.model.theme)
    assert (props["base"], props["fg"], props["fg-2"]) == ("#ffffff", "#141414", "#5c6565")
    assert (props["accent"], props["font"], props["rm"], props["fm"], props["mix"], props["mix-strength"]) == (
        "#ff00aa", "Georgia, 'Times New Roman', serif", "1px", "12px", "#00ff00", "20%")
    sheet = style(h.model.theme)
    assert sheet.startswith(":root{color-scheme:light;") and "--accent:#ff00aa" in sheet


def test_the_hosts_later_calls_change_the_frames_theme() -> None:
    h = _session()
    assert h.host("set_theme_mode", mode="light") == "ok"
    assert h.host("set_theme_variables", variables={"--w3m-accent": "rgb(10 20 30 / 0.9)"}) == "ok"
    props = properties(h.model.theme)
    assert (props["base"], props["accent"]) == ("#ffffff", "rgb(10 20 30 / 0.9)")
    assert h.host("set_theme_mode", mode="dark") == "ok"
    assert properties(h.model.theme)["base"] == "#191a1a"


@pytest.mark.parametrize("value", [
    "red}</style><script>alert(1)</script>", "red;background:url(https://evil.test/x)",
    "url(https://evil.test/x)", "red /* comment", "#fff\\3b", "@import 'x'", "red{"])
def test_a_value_that_could_leave_the_declaration_is_dropped(value: str) -> None:
    assert not plain_value(value)
    h = _session(themeMode="light", themeVariables={"--w3m-accent": value, "--w3m-font-family": value})
    sheet = style(h.model.theme)
    assert value not in sheet and "</style" not in sheet and "url(" not in sheet
    props = properties(h.model.theme)
    assert props["accent"] == "#3396ff" and props["font"].startswith("Inter")


def _frame_query(world: EmailWorld) -> dict[str, list[str]]:
    request = world.h.model.embedded.request
    assert request is not None
    return parse_qs(urlsplit(world.h.node(f"approve/frame/{request.eid}").p["src"]).query)


def test_a_theme_change_while_the_frame_is_open_loads_it_again_in_the_new_theme(
        tmp_path: Path, smtp: LocalSmtpServer) -> None:
    """The frame's address names the session's theme (none for the default): when the host
    changes the mode or a variable while an approval is open, the frame's `src` changes, so the
    browser loads the page again, drawn in the new theme."""
    world = EmailWorld(open_wallet(tmp_path / "e.db", smtp), smtp)
    address = world.sign_in("ivy@example.com")
    world.h.intent("host", "rpc", {"id": "1", "method": "personal_sign", "params": ["0x00", address]})
    assert world.h.view == "ApproveTransaction"
    assert "theme" not in _frame_query(world)  # the default theme: the address as before
    world.h.host("set_theme_mode", mode="light")
    [light] = _frame_query(world)["theme"]
    assert light.startswith("light-")
    world.h.host("set_theme_variables", variables={"--w3m-accent": "#ff00aa"})
    [accent] = _frame_query(world)["theme"]
    assert accent.startswith("light-") and accent != light
    world.h.host("set_theme_mode", mode="dark")
    [dark] = _frame_query(world)["theme"]
    assert dark.startswith("dark-")
    assert world.h.view == "ApproveTransaction" and world.h.model.embedded.request is not None
