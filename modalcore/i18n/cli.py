"""`python -m modalcore i18n extract | check`.

`extract` reads the shown strings from the source (extract.py), writes `locales/messages.pot`
and merges it into every language's `.po`: new strings arrive untranslated, translations of
strings no view draws any more are kept as obsolete (`#~`). `check` lists, per language, the
strings without a translation (exit 1 when there is one): run both after merging a branch
that adds views or texts, translate what `check` lists, run `check` again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from .catalog import ENGLISH, LANGUAGES
from .extract import extract, is_plural

LOCALES = Path(__file__).resolve().parent / "locales"
PROJECT = "modalcore"


def template() -> Catalog:
    pot = Catalog(project=PROJECT, version="1", fuzzy=False)
    for found in extract():
        msgid: str | tuple[str, str] = (found.msgid, found.msgid) if is_plural(found.msgid) else found.msgid
        path, line = found.where.rsplit(":", 1)
        pot.add(msgid, locations=[(path, int(line))])
    return pot


def _po_path(language: str, root: Path) -> Path:
    return root / f"{language}.po"


def write_catalog(catalog: Catalog, path: Path) -> None:
    with path.open("wb") as out:
        # files without line numbers: an edit elsewhere in a view does not touch every .po
        write_po(out, catalog, width=100, sort_output=False, include_previous=False, include_lineno=False)


def update(root: Path = LOCALES) -> dict[str, int]:
    """Write messages.pot and merge it into each `.po`; the number of entries per language."""
    pot = template()
    write_catalog(pot, root / "messages.pot")
    counts = {}
    for language in LANGUAGES:
        if language == ENGLISH:
            continue
        path = _po_path(language, root)
        if path.exists():
            with path.open("rb") as po:
                catalog = read_po(po, locale=language)
        else:
            catalog = Catalog(locale=language, project=PROJECT, version="1", fuzzy=False)
        catalog.update(pot, no_fuzzy_matching=True)
        write_catalog(catalog, path)
        counts[language] = len(catalog)
    return counts


def untranslated(root: Path = LOCALES) -> dict[str, list[str]]:
    """Per language, the shown strings its catalogue lacks or leaves empty."""
    wanted = [found.msgid for found in extract()]
    missing: dict[str, list[str]] = {}
    for language in LANGUAGES:
        if language == ENGLISH:
            continue
        path = _po_path(language, root)
        catalog: Catalog | None = None
        if path.exists():
            with path.open("rb") as po:
                catalog = read_po(po, locale=language)
        lacking = []
        for msgid in wanted:
            message = catalog.get(msgid) if catalog is not None else None
            strings = message.string if message is not None else ""
            forms = strings if isinstance(strings, tuple) else (strings,)
            if message is None or message.fuzzy or not all(forms):
                lacking.append(msgid)
        missing[language] = lacking
    return missing


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("extract", help="write messages.pot and merge new strings into every .po")
    actions.add_parser("check", help="list the strings a language lacks (exit 1 if any)")


def run(args: argparse.Namespace) -> int:
    if args.action == "extract":
        for language, count in update().items():
            print(f"{language}: {count} entries")
        return 0
    missing = untranslated()
    total = len(extract())
    for language, lacking in missing.items():
        print(f"{language}: {total - len(lacking)}/{total} translated")
        for msgid in lacking:
            print(f"  untranslated: {msgid!r}")
    return 1 if any(missing.values()) else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m modalcore.i18n.cli")
    add_arguments(parser)
    sys.exit(run(parser.parse_args()))
