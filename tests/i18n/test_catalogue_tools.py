"""`python -m modalcore i18n extract | check`: what the lead runs after merging a branch that
adds strings; and the shipped catalogues are complete."""

from __future__ import annotations

import shutil
from pathlib import Path

from babel.messages.pofile import read_po

from modalcore.__main__ import main
from modalcore.i18n import cli
from modalcore.i18n.extract import extract, is_text, template


def test_the_shipped_catalogues_translate_every_shown_string(capsys: object) -> None:
    assert cli.untranslated() == {"de": [], "es": [], "ja": [], "ar": []}
    assert main(["i18n", "check"]) == 0


def test_check_lists_a_string_a_catalogue_lacks_and_extract_adds_it(tmp_path: Path) -> None:
    for po in cli.LOCALES.glob("*.po"):
        shutil.copy(po, tmp_path / po.name)
    de = tmp_path / "de.po"
    text = de.read_text(encoding="utf-8")
    entry = 'msgid "Get started"\nmsgstr "Loslegen"\n'
    assert entry in text
    de.write_text(text.replace(entry, ""), encoding="utf-8")  # a string a merged branch added
    assert cli.untranslated(tmp_path)["de"] == ["Get started"]
    assert cli.untranslated(tmp_path)["es"] == []
    counts = cli.update(tmp_path)
    assert counts["de"] == len(extract())
    with de.open("rb") as stream:
        catalog = read_po(stream, locale="de")
    message = catalog.get("Get started")
    assert message is not None and message.string == ""  # added, waiting for its translation
    assert catalog.get("Connect Wallet").string == "Wallet verbinden"  # type: ignore[union-attr]
    assert (tmp_path / "messages.pot").exists()


def test_extraction_keeps_words_and_drops_technical_strings() -> None:
    found = {f.msgid for f in extract()}
    assert {"Connect Wallet", "Please try again after {n} seconds", "Continue in {name} with a link below.",
            "{n} min", "Balance: {amount} {symbol}", "From {address}", "Connection declined", "Tokens"} <= found
    for technical in ("connect/all-wallets", "AllWallets", "READS", "col", "EXTERNAL", "March"):
        assert technical not in found
    assert is_text("Get started") and not is_text("wallet/open/{kind}") and not is_text("{sign}{n} {symbol}")


def test_an_fstring_becomes_a_template_with_named_placeholders() -> None:
    import ast

    tree = ast.parse('f"Install the {wallet.name} extension, {round(s / 60)} min, {name}"')
    joined = tree.body[0].value  # type: ignore[attr-defined]
    assert template(joined) == "Install the {name} extension, {n} min, {name2}"


def test_a_conditional_word_in_an_fstring_is_one_template_per_branch_not_a_count() -> None:
    """`{'pay with' if side == 'from' else 'receive'}` draws words, not a number: each branch is
    its own msgid (a `{n}` there would be read as a count and never match the drawn label)."""
    import ast

    from modalcore.i18n.extract import templates

    tree = ast.parse("f\"{SELECT} to {'pay with' if side == 'from' else 'receive'}, {s.receiver.lower()}\"")
    joined = tree.body[0].value  # type: ignore[attr-defined]
    assert templates(joined) == ["{select} to pay with, {receiver}", "{select} to receive, {receiver}"]
    found = {f.msgid for f in extract()}
    assert {"Pay with {symbol}, change token", "Receive {symbol}, change token"} <= found
    assert not any("{n}" in msgid and "change token" in msgid for msgid in found)


def test_the_name_rules_refusals_are_extracted() -> None:
    """The Register view draws rules/names.py's messages as they are (behaviour.md §8 'Address or auth
    connector not found', the project's name checks): they are catalogue entries, not English."""
    found = {f.msgid for f in extract()}
    assert {"Address or auth connector not found", "Name must be at least {min_length} characters",
            "Name can only contain letters, digits and hyphens", "No address found for {name}"} <= found
