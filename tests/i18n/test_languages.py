"""Issue 20 part 4: the engine renders every view in de, es, ja and ar from message catalogues;
English stays behaviour.md's strings; right-to-left sets `dir`; plural forms, numbers and dates follow
the locale (Babel)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from modalcore import samples
from modalcore.core.evolve import replace
from modalcore.enginetest import Harness
from modalcore.i18n import LANGUAGES, localize, resolve
from modalcore.i18n.catalog import Catalogue, Template, catalogue
from modalcore.i18n.extract import AUTOMATIC, extract
from modalcore.i18n.localize import NAMED, TEXT_PROPS
from modalcore.rules import texts
from modalcore.slices.model import Model
from modalcore.views import BodyCache, render
from modalcore.wire.nodes import Node

from .tour import tour

OTHERS = [language for language in LANGUAGES if language != "en"]
SHOWN = extract()
MSGIDS = {found.msgid for found in SHOWN}
TEMPLATES = [Template.compile(m, (m,)) for m in MSGIDS if "{" in m]
# two lowercase words in a row: words a visitor reads, not a name, an address or an amount
PROSE = re.compile(r"[a-z]{2,} [a-z]{2,}")


def in_language(model: Model, language: str | None) -> Model:
    return replace(model, options=model.options.model_copy(update={"locale": language}))


def texts_of(tree: Node) -> Iterator[tuple[Node, str, str]]:
    for node in tree.walk():
        for key, value in node.p.items():
            if key in TEXT_PROPS or (key == "name" and node.t in NAMED):
                if isinstance(value, str) and value:
                    yield node, key, value
            elif key == "items":
                for item in value:
                    yield node, key, item


def catalogued(text: str) -> bool:
    return text in MSGIDS or any(t.pattern.fullmatch(text) for t in TEMPLATES)


TOUR = list(tour())


def test_the_tour_reaches_every_view() -> None:
    from modalcore.views import VIEW_MODULES

    assert {model.router.view for _, model in TOUR} == set(VIEW_MODULES)
    assert len(TOUR) > 30


@pytest.mark.parametrize("language", OTHERS)
def test_every_view_in_every_language_has_no_untranslated_string(language: str) -> None:
    """Rule: every string a view shows comes from the catalogue of the visitor's language."""
    cat: Catalogue = catalogue(language)
    untranslated: list[str] = []
    unextracted: list[str] = []
    for label, model in TOUR:
        english = render(model)
        local = render(in_language(model, language))
        assert [n.id for n in local.walk()] == [n.id for n in english.walk()], label
        for node, key, text in texts_of(english):
            if text in AUTOMATIC or re.fullmatch(r"[A-Z][a-z]+ \d{4}", text):
                continue  # month names: Babel's (test_dates_follow_the_locale)
            if catalogued(text):
                if cat.translate(text) is None:
                    untranslated.append(f"{label} {node.id}.{key}: {text!r}")
            elif PROSE.search(text):
                unextracted.append(f"{label} {node.id}.{key}: {text!r}")
    assert untranslated == []
    assert unextracted == [], "shown but not found by `i18n extract`"


def test_a_translated_tree_differs_from_english_in_its_texts() -> None:
    """The check above can fail: the German tree really carries German texts."""
    model = dict(TOUR)["Connect"]
    local = render(in_language(model, "de"))
    shown = {text for _, _, text in texts_of(local)}
    assert {"Wallet verbinden", "Noch keine Wallet?", "Loslegen"} <= shown
    assert not shown & {"Connect Wallet", "Haven't got a wallet?", "Get started"}


def test_english_is_spec_strings_exactly() -> None:
    """Rule: English stays behaviour.md's strings: the English tree is the views' own, untouched."""
    for label, model in TOUR:
        english = render(model)
        assert render(in_language(model, "en")) == english, label
        assert render(in_language(model, "en-GB")) == english, label
        assert "lang" not in english.p and "dir" not in english.p
    for name in ("INVALID_APP_CONFIGURATION", "TOKEN_BALANCE_UNAVAILABLE", "SIGNATURE_DECLINED",
                 "EMAIL_CODE_RATE_LIMITED", "FAILED_TO_DISCONNECT_CHAIN"):
        assert getattr(texts, name) in MSGIDS  # the msgid is the quoted string itself
    same = Node("t", "text", {"text": "Connect Wallet"})
    assert localize(same, "en") is same


@pytest.mark.parametrize(("language", "direction"), [("ar", "rtl"), ("de", "ltr"), ("es", "ltr"), ("ja", "ltr")])
def test_the_root_carries_lang_and_dir(language: str, direction: str) -> None:
    tree = render(in_language(dict(TOUR)["Connect"], language))
    assert tree.t == "modal" and tree.p["lang"] == language and tree.p["dir"] == direction


def test_the_locale_comes_from_the_host_then_the_browser() -> None:
    assert resolve("de", ("ar",)) == "de"
    assert resolve("de-AT", ()) == "de"
    assert resolve("fr", ("pt-BR", "es-MX", "ja")) == "es"  # a language the engine lacks is skipped
    assert resolve(None, ("ar-EG",)) == "ar"
    assert resolve(None, ("fr",)) == "en"
    assert resolve(None, ()) == "en"
    h = Harness.from_join({**samples.join(), "env": {**samples.ENV, "languages": ["ja-JP", "en"]}})
    h.host("open")
    assert h.tree.p["lang"] == "ja" and h.node("header/title").p["text"] == "ウォレットを接続"
    h = Harness.from_join({**samples.join(locale="es"), "env": {**samples.ENV, "languages": ["ja-JP"]}})
    h.host("open")
    assert h.node("header/title").p["text"] == "Conectar billetera"


PLURALS = {  # 'Please try again after {n} seconds' for n = 1, 2, 5, 11, 100
    "de": ["in 1 Sekunde", "in 2 Sekunden", "in 5 Sekunden", "in 11 Sekunden", "in 100 Sekunden"],
    "es": ["de 1 segundo", "de 2 segundos", "de 5 segundos", "de 11 segundos", "de 100 segundos"],
    "ja": ["1 秒後", "2 秒後", "5 秒後", "11 秒後", "100 秒後"],
    "ar": ["ثانية واحدة", "ثانيتين", "5 ثوانٍ", "11 ثانية", "100 ثانية"],
}


@pytest.mark.parametrize("language", OTHERS)
def test_a_count_takes_the_plural_form_of_the_language(language: str) -> None:
    cat = catalogue(language)
    for n, expected in zip((1, 2, 5, 11, 100), PLURALS[language], strict=True):
        translated = cat.translate(texts.email_code_rate_limited(n))
        assert translated is not None and expected in translated, (n, translated)


NUMBERS = {  # (a balance, a dollar value, an activity group of another year)
    "de": ("1.234,500 ETH", "1.234,50\xa0$", "Oktober 2025"),
    "es": ("1.234,500 ETH", "1.234,50\xa0US$", "octubre de 2025"),
    "ja": ("1,234.500 ETH", "$1,234.50", "2025年10月"),
    "ar": ("1,234.500 ETH", "\u200f1,234.50\xa0US$\u200e", "أكتوبر 2025"),
}


@pytest.mark.parametrize("language", OTHERS)
def test_numbers_and_dates_follow_the_locale(language: str) -> None:
    balance, dollars, month = NUMBERS[language]
    account = render(in_language(dict(TOUR)["Account/tokens"], language))
    assert account.find("account/balance").p["text"] == balance  # type: ignore[union-attr]
    item = localize(Node("v", "token-item", {"amount": "1,234.500", "value": "$1,234.50"}), language)
    assert item.c == () and item.p["value"] == dollars
    activity = render(in_language(dict(TOUR)["Account/activity"], language))
    titles = [n.p["title"] for n in activity.walk() if n.t == "group"]
    assert month in titles, titles


def test_drawing_again_reuses_the_translated_nodes() -> None:
    """Render cost stays flat: an unchanged view body maps to the same translated object, so
    the diff skips it by identity."""
    model = dict(TOUR)["Connect"]  # views/connect.py names its READS: its body is memoised
    bodies = BodyCache()  # a session's memo of view bodies
    assert render(model, bodies).find("connect/body") is render(model, bodies).find("connect/body")
    local = in_language(model, "ar")
    first, second = render(local, bodies), render(local, bodies)
    body = first.find("connect/body")
    assert body is not None and body is second.find("connect/body")
    assert body.find("connect/footer/link").p["text"] == "ابدأ"  # type: ignore[union-attr]


def test_the_tour_reaches_the_swap_buy_and_name_views_with_data() -> None:
    """Rule: the views other branches merged are rendered in every language with their data, not
    only bare: a quoted swap, a quoted Buy, a send to a resolved name, the account-name views."""
    reached = {label: model for label, model in TOUR}
    expected = {"Swap/quoted": "Swap", "SwapPreview": "SwapPreview", "OnRamp/quoted": "OnRamp", "WalletSend/name-resolved": "WalletSend",
                "RegisterAccountName/available": "RegisterAccountName",
                "RegisterAccountNameSuccess/done": "RegisterAccountNameSuccess"}
    for label, view in expected.items():
        assert reached[label].router.view == view, label
    shown = {text for label in expected for _, _, text in texts_of(render(reached[label]))}
    assert {"You pay", "Total", "satoshi.reown.id is available", "is now your account name"} <= shown
    assert any(text.endswith(" resolves to " + samples.SECOND_ADDRESS) for text in shown) or \
        samples.SECOND_ADDRESS in shown


@pytest.mark.parametrize(("language", "shown"), [("en", "2,500.000 ETH"), ("de", "2.500,000 ETH")])
def test_rule_the_connect_buttons_balance_is_in_the_modals_language(language: str, shown: str) -> None:
    """The host event's `account.balance` (what ConnectButton shows) follows the locale like
    the balance inside the modal (issue 31)."""
    h = Harness.from_join(samples.join(locale=language))
    h.connect_wallet()
    h.settle_call("balances", samples.balances(native_wei=2500 * samples.ETHER))
    assert h.host_state("account")["balance"] == shown
    h.host("open")
    assert shown in h.texts()
