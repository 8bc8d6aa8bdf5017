"""The SDK's option and view types are generated from the engine's own declarations (issue 40
item 5): `renderer/src/options.gen.ts` from `slices/options.HostOptions` and the views a host may
open, kept current by `python -m modalcore.typegen --check` (run by `make typecheck`)."""

from __future__ import annotations

import re
from pathlib import Path

from modalcore import typegen
from modalcore.slices.modal import NEEDS_PARAM
from modalcore.slices.options import CustomWallet, Features, HostOptions, SiwxOptions
from modalcore.slices.router import VIEWS

ROOT = Path(__file__).resolve().parents[1]


def _fields(text: str, interface: str) -> dict[str, str]:
    """field -> '?' or '' (required) of one generated interface."""
    body = re.search(rf"export interface {interface} \{{\n(.*?)\n\}}", text, re.S)
    assert body is not None, interface
    return {m[1]: m[2] for m in re.finditer(r"readonly (\w+)(\??):", body[1])}


def test_the_committed_option_types_are_the_generated_ones() -> None:
    assert (ROOT / typegen.OPTIONS_TS).read_text() == typegen.options_text(), "run: python -m modalcore.typegen"
    assert typegen.stale() == []


def test_every_option_the_engine_reads_is_typed_and_no_other() -> None:
    text = typegen.options_text()
    for interface, model in (("EngineOptions", HostOptions), ("Features", Features),
                             ("SiwxOptions", SiwxOptions), ("CustomWallet", CustomWallet)):
        assert set(_fields(text, interface)) == set(model.model_fields), interface
    # a custom wallet without its id or name is refused by the engine: required in the types too
    assert _fields(text, "CustomWallet")["name"] == "" and _fields(text, "CustomWallet")["id"] == ""
    assert _fields(text, "Features")["swaps"] == "?"
    assert "readonly themeMode?: 'light' | 'dark';" in text


def test_the_view_union_is_the_views_open_can_draw() -> None:
    text = typegen.options_text()
    union = set(re.findall(r"^  \| '(\w+)'", text, re.M))
    assert union == set(VIEWS) - set(NEEDS_PARAM)
    assert {"Account", "Connect", "Networks", "SIWXSignMessage"} <= union
    assert "ConnectingExternal" not in union


def test_check_fails_on_a_stale_file_and_passes_once_written(tmp_path: Path) -> None:
    for path in typegen.generated():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    assert typegen.main(["--check", str(tmp_path)]) == 1
    typegen.main([str(tmp_path)])
    assert typegen.main(["--check", str(tmp_path)]) == 0
    (tmp_path / typegen.OPTIONS_TS).write_text("// edited\n")
    assert typegen.main(["--check", str(tmp_path)]) == 1
