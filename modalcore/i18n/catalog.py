"""Message catalogues: one gettext `.po` per language, shipped in the package and parsed once
(Babel's reader), msgid = the English string exactly as the views draw it.

A msgid with `{placeholders}` is a template: it is compiled to a pattern, so a drawn string
such as 'Please try again after 7 seconds' is found with its arguments and translated with
them. `{n}` is a count: it picks the plural form by the language's rule and is written in
the locale's digits and separators. Lookups are memoised per string, so a tree drawn again
costs one dictionary hit per text.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from . import formats

ENGLISH = "en"
# The languages the engine renders, English first (behaviour.md's strings, no catalogue).
LANGUAGES = ("en", "de", "es", "ja", "ar")
RIGHT_TO_LEFT = frozenset(("ar",))
MEMO_ENTRIES = 4096  # translated strings kept per language (texts repeat; data varies)
_FIELD = re.compile(r"\{([a-z0-9_]+)\}")


@dataclass(frozen=True)
class Template:
    msgid: str
    pattern: re.Pattern[str]
    names: tuple[str, ...]
    forms: tuple[str, ...]  # msgstr, or msgstr[0..] for a count

    @staticmethod
    def compile(msgid: str, forms: tuple[str, ...]) -> Template:
        names = tuple(_FIELD.findall(msgid))
        pieces, last = [], 0
        for match in _FIELD.finditer(msgid):
            pieces.append(re.escape(msgid[last:match.start()].replace("{{", "{").replace("}}", "}")))
            pieces.append(f"(?P<{match.group(1)}>.+?)")
            last = match.end()
        pieces.append(re.escape(msgid[last:].replace("{{", "{").replace("}}", "}")))
        return Template(msgid, re.compile("".join(pieces), re.DOTALL), names, forms)


class Catalogue:
    def __init__(self, locale: str, catalog: Catalog) -> None:
        self.locale = locale
        self.exact: dict[str, str] = {}
        self.templates: list[Template] = []
        expr = catalog.plural_expr or "0"
        self.plural: Callable[[int], int] = gettext.c2py(expr)
        self.nplurals = catalog.num_plurals
        for message in catalog:
            if not message.id or message.fuzzy:
                continue
            msgid = str(message.id[0] if isinstance(message.id, tuple | list) else message.id)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            forms = tuple(str(s) for s in strings)
            if not all(forms):
                continue  # untranslated: drawn in English, listed by `i18n check`
            if _FIELD.search(msgid):
                self.templates.append(Template.compile(msgid, forms))
            else:
                self.exact[msgid] = forms[0]
        # longer templates first: 'Continue in {name} with a link below.' before 'Continue in {name}'
        self.templates.sort(key=lambda t: -len(_FIELD.sub("", t.msgid)))
        self._memo: dict[str, str | None] = {}

    def msgids(self) -> set[str]:
        return {*self.exact, *(t.msgid for t in self.templates)}

    def translate(self, text: str) -> str | None:
        """`text` in this language; None when no catalogue entry matches it (data: a wallet's
        name, an address)."""
        memo = self._memo
        if text in memo:
            return memo[text]
        result = self._translate(text)
        if len(memo) >= MEMO_ENTRIES:
            memo.clear()
        memo[text] = result
        return result

    def _translate(self, text: str) -> str | None:
        exact = self.exact.get(text)
        if exact is not None:
            return exact
        for template in self.templates:
            match = template.pattern.fullmatch(text)
            if match is None:
                continue
            args: dict[str, str] = match.groupdict()
            form = 0
            if "n" in args:
                counted = formats.count(args["n"], self.locale)
                if counted is not None:
                    args["n"], count = counted
                    form = self.plural(count) if len(template.forms) > 1 else 0
            for name, value in args.items():  # an argument may itself be a text ('your wallet')
                if name == "amount":
                    args[name] = formats.number(value, self.locale) or value
                elif name != "n":
                    args[name] = self.translate(value) or value
            return template.forms[min(form, len(template.forms) - 1)].format(**args)
        return None


def _read(language: str) -> Catalog:
    with files(__package__).joinpath("locales", f"{language}.po").open("rb") as po:
        return read_po(po, locale=language)


@lru_cache(maxsize=None)
def catalogue(language: str) -> Catalogue:
    if language not in LANGUAGES or language == ENGLISH:
        raise LookupError(f"no catalogue for {language!r}; languages: {', '.join(LANGUAGES)}")
    return Catalogue(language, _read(language))


def read_catalog(language: str) -> Catalog:
    """The parsed `.po` (for `i18n check`)."""
    return _read(language)


@lru_cache(maxsize=256)
def resolve(option: str | None, languages: tuple[str, ...]) -> str:
    """The host's `locale` when the engine has its language, else the first browser language it
    has, else English. A region falls back to its language ('de-AT' is 'de')."""
    for tag in ((option,) if option else ()) + languages:
        language = re.split(r"[-_]", tag.strip().lower(), maxsplit=1)[0]
        if language in LANGUAGES:
            return language
    return ENGLISH


def direction(language: str) -> str:
    return "rtl" if language in RIGHT_TO_LEFT else "ltr"
