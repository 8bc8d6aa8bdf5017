"""The behaviour index names real modules and pages here, and every quoted string of
docs/contributors/behaviour.md is defined once (issue 12 item 9)."""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

import modalcore
from modalcore.rules import texts
from modalcore.spec_index import PAGES, SPEC_INDEX

PACKAGE = pathlib.Path(modalcore.__file__).parent
TEXTS_FILE = pathlib.Path(texts.__file__)
SPEC_STRINGS = {name: value for name, value in vars(texts).items() if name.isupper() and isinstance(value, str)}


def test_the_index_lists_every_spec_section_in_order() -> None:
    numbers = [int(section.split(".")[0]) for section in SPEC_INDEX]
    assert numbers == list(range(1, 10))


def test_rule_every_section_points_at_pages_here_that_exist_with_their_anchors() -> None:
    root = PACKAGE.parent
    assert list(PAGES) == list(SPEC_INDEX)
    for section, pages in PAGES.items():
        number = section.split(".")[0]
        assert "docs/contributors/behaviour.md" + f"#s{number}" in pages, section
        for page in pages:
            path, _, anchor = page.partition("#")
            assert (root / path).is_file(), page
            if anchor:
                text = (root / path).read_text(encoding="utf-8")
                assert f'id="{anchor}"' in text or f"## {anchor.replace('-', ' ')}" in text.lower(), page


@pytest.mark.parametrize("module", sorted({m for topics in SPEC_INDEX.values() for ms in topics.values() for m in ms}))
def test_every_module_in_the_index_exists(module: str) -> None:
    importlib.import_module(module)


def _literals(path: pathlib.Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):  # an f-string: its fixed head
            head = node.values[0] if node.values else None
            if isinstance(head, ast.Constant) and isinstance(head.value, str):
                found.append((node.lineno, head.value + "{"))
    return found


def _copies(value: str, literal: str) -> bool:
    if "{" not in value:
        return literal == value
    head = value.split("{")[0]
    return len(head) >= 8 and literal.startswith(head)


def test_no_spec_string_is_written_outside_the_texts_module() -> None:
    copies = [
        f"{path.relative_to(PACKAGE.parent)}:{line} repeats texts.{name}"
        for path in sorted(PACKAGE.rglob("*.py")) if path != TEXTS_FILE
        for line, literal in _literals(path)
        for name, value in SPEC_STRINGS.items() if _copies(value, literal)
    ]
    assert copies == []


def test_the_check_finds_a_copy() -> None:
    assert _copies(texts.INVALID_CHAIN_ID, "Invalid chainId")
    assert _copies(texts.HTTP_STATUS, "HTTP status code: {")
    assert not _copies(texts.INVALID_CHAIN_ID, "Invalid chainId!")
