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


# -- every rule a comment or a page cites is a file here ------------------------------------------

CODE_TREES = ("modalcore", "modalcore_dev", "modalcore_testing", "renderer/src", "tests")
BEHAVIOUR = DOCS / "contributors" / "behaviour.md"
# Files outside the repository (the product spec, the design notes, the shared folder): a comment
# that cites one sends a contributor to a file they do not have.
OUTSIDE = re.compile(r"SPEC\.md|DESIGN\.md|NOTES\.md|\bSPEC\b(?!_)|\bDESIGN\b|\.\./shared|/work/shared")
SECTION = re.compile(r"behaviour\.md §(\d+)")
NAMED = re.compile(r'behaviour\.md "([^"]+)"')
DOC_PATH = re.compile(r"\bdocs/[\w./-]+\.md(?:#[\w-]+)?")
LINK = re.compile(r"\]\(([^)\s]+?\.md)(#[\w-]+)?\)")


def code_files() -> list[Path]:
    return sorted(path for tree in CODE_TREES for suffix in ("*.py", "*.ts", "*.tsx")
                  for path in (ROOT / tree).rglob(suffix)
                  if "node_modules" not in path.parts and "__pycache__" not in path.parts
                  and path != Path(__file__).resolve())  # this file names what it looks for


# Files beside the code and the pages that cite rules too (the protocol, configs, the lock's comments).
OTHER_FILES = ("README.md", "README-wheel.md", "Makefile", "pyproject.toml", "mkdocs.yml", "protocol/PROTOCOL.md",
               "config/*", "icons/*.mjs", "walletpeer/*.mjs", "walletpeer/*.md", "oidcprovider/*.mjs",
               "bundler/*.cjs", "sdk/*.md", "sdk/src/*", "chain/*.*", "docs/gen_reference.py")


def other_files() -> list[Path]:
    return sorted({path for pattern in OTHER_FILES for path in ROOT.glob(pattern) if path.is_file()})


def doc_pages() -> list[Path]:
    return sorted(page for page in DOCS.rglob("*.md") if not page.is_symlink())


def outside_citations(text: str) -> list[str]:
    return [match.group(0) for match in OUTSIDE.finditer(text)]


def anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    found = set(re.findall(r'id="([\w-]+)"|\{#([\w-]+)\}', text))
    found = {name for pair in found for name in pair if name}
    for heading in re.findall(r"^#+ (.+)$", text, re.MULTILINE):  # Python-Markdown's slugify
        words = re.sub(r"[^\w\s-]", "", re.sub(r"<[^>]+>", "", heading)).strip().lower()
        found.add(re.sub(r"[-\s]+", "-", words))
    return found


def missing_references(text: str, base: Path) -> list[str]:
    """What `text` cites that is not here: a behaviour.md section or named rule without its
    anchor, a `docs/...md` path, or (in a page, relative to `base`) a linked page or anchor."""
    behaviour = anchors(BEHAVIOUR)
    missing = [f"behaviour.md §{n}" for n in SECTION.findall(text) if f"s{n}" not in behaviour]
    missing += [f'behaviour.md "{name}"' for name in NAMED.findall(text)
                if name.lower().replace(" ", "-") not in behaviour]
    for cited in DOC_PATH.findall(text):
        path, _, anchor = cited.partition("#")
        if not (ROOT / path).is_file() or (anchor and anchor not in anchors(ROOT / path)):
            missing.append(cited)
    for target, anchor in LINK.findall(text) if base.suffix == ".md" else []:
        page = (base.parent / target).resolve()
        if target.startswith(("http:", "https:")):
            continue
        if not page.is_file() or (anchor and anchor[1:] not in anchors(page)):
            missing.append(target + anchor)
    return missing


def test_rule_no_comment_or_page_cites_a_file_outside_the_repository() -> None:
    found = {f"{path.relative_to(ROOT)}:{number}": outside_citations(line)
             for path in [*code_files(), *doc_pages(), *other_files()]
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if outside_citations(line)}
    assert found == {}, "cite docs/contributors/behaviour.md (or a feature page) instead"


def test_rule_every_docs_page_or_behaviour_section_a_comment_or_page_cites_exists() -> None:
    found = {str(path.relative_to(ROOT)): missing
             for path in [*code_files(), *doc_pages(), *other_files()]
             if (missing := missing_references(path.read_text(encoding="utf-8"), path))}
    assert found == {}


def test_the_citation_checks_can_fail(tmp_path: Path) -> None:
    assert outside_citations('x  # SPEC §4 "On start"; see ../shared/DESIGN.md') == ["SPEC", "../shared", "DESIGN.md"]
    assert outside_citations("(DESIGN, \"Latency\") and SPEC.md") == ["DESIGN", "SPEC.md"]
    assert outside_citations("SPEC_INDEX and behaviour.md §4") == []
    page = tmp_path / "page.md"
    assert missing_references('behaviour.md §12, behaviour.md "Nowhere", docs/features/gone.md', page) == [
        "behaviour.md §12", 'behaviour.md "Nowhere"', "docs/features/gone.md"]
    assert missing_references("[a](gone.md)", page) == ["gone.md"]
    page.write_text("# Title\n", encoding="utf-8")
    assert missing_references("[b](page.md#nowhere) [c](page.md#title)", page) == ["page.md#nowhere"]
    assert missing_references('behaviour.md §4, behaviour.md "Trust boundaries", '
                              "docs/contributors/behaviour.md#s9", page) == []


# -- architecture.md lists every package in its place ----------------------------------------------

PACKAGE_ROOTS = ("modalcore", "modalcore_dev", "modalcore_testing")


def packages(root: str) -> list[str]:
    """`root`'s top-level packages (`modalcore/aa/`); a root without any lists its modules."""
    base = ROOT / root
    found = [f"{root}/{path.name}/" for path in sorted(base.iterdir())
             if path.is_dir() and (path / "__init__.py").is_file()]
    return found or [f"{root}/{path.name}" for path in sorted(base.glob("*.py"))]


def unlisted_packages(text: str) -> list[str]:
    """Packages that are not on a line of their root's section (`### `root/`...`)."""
    sections = {chunk.split("`", 2)[1]: chunk for chunk in re.split(r"^### ", text, flags=re.MULTILINE)[1:]
                if chunk.startswith("`")}
    return [package for root in PACKAGE_ROOTS for package in packages(root)
            if f"- `{package}`" not in sections.get(f"{root}/", "")]


def test_rule_architecture_lists_every_package_in_its_place() -> None:
    text = (DOCS / "contributors" / "architecture.md").read_text(encoding="utf-8")
    assert unlisted_packages(text) == []


def test_the_package_check_can_fail() -> None:
    text = (DOCS / "contributors" / "architecture.md").read_text(encoding="utf-8")
    assert unlisted_packages(text.replace("- `modalcore/aa/`", "- aa")) == ["modalcore/aa/"]
    moved = text.replace("- `modalcore_dev/bench/`: ", "").replace("- `modalcore/wire/`", "- `modalcore_dev/bench/`: x\n- `modalcore/wire/`")
    assert unlisted_packages(moved) == ["modalcore_dev/bench/"]
