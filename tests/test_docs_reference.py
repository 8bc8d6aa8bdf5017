"""The documentation site (docs/, mkdocs.yml): the reference pages generated from the pydantic
models are the committed ones, the README stays a short entry point, and user docs speak of
features, not issue numbers."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rule_a_committed_reference_page_is_what_the_models_generate() -> None:
    for path, text in generator().pages().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} is stale: run .venv/bin/python docs/gen_reference.py")


def test_rule_a_stale_page_fails_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gen = generator()
    page = tmp_path / "options.md"
    page.write_text(gen.host_page().replace("| `debug` |", "| `debugging` |"), encoding="utf-8")
    monkeypatch.setattr(gen, "pages", lambda: {page: gen.host_page()})
    assert gen.main(["--check"]) == 1
    gen.main([])
    assert gen.main(["--check"]) == 0


def test_rule_every_field_of_the_models_is_on_its_page_and_every_note_names_a_field() -> None:
    gen = generator()
    models = {name: value for name, value in vars(gen).items()
              if isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel}
    for key in gen.NOTES:
        model, field = key.split(".")
        assert field in models[model].model_fields, f"NOTES names no field: {key}"
    host, operator = gen.host_page(), gen.operator_page()
    for name in gen.HostOptions.model_fields:
        assert f"| `{name}` |" in host
    for name in gen.EngineConfig.model_fields:
        assert name == "base_dir" or f"| `{name}` |" in operator


def test_rule_the_readme_is_an_entry_point_with_the_two_commands_first() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150
    head = "\n".join(lines[:40])
    assert "make run" in head and "make test" in head


def test_rule_every_page_is_in_the_site_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in DOCS.rglob("*.md"):
        assert f" {page.relative_to(DOCS).as_posix()}\n" in nav, f"{page} is not in mkdocs.yml's nav"


def test_rule_user_docs_name_features_not_issue_numbers() -> None:
    """protocol.md is protocol/PROTOCOL.md, the contributors' contract, linked in as it is."""
    for page in DOCS.rglob("*.md"):
        if page.is_symlink():
            continue
        found = re.findall(r"\bissues? \d+", page.read_text(encoding="utf-8"), re.IGNORECASE)
        assert not found, f"{page.relative_to(ROOT)} names {found}"
