"""Numbers and dates in the locale's own format (Babel's CLDR data), applied to what the views
drew in English: '1,234.500' becomes '1.234,500' in German, '$12.00' '12,00 $', 'March 2025'
'März 2025' or '2025年3月'."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from babel import Locale
from babel.dates import format_skeleton, get_month_names
from babel.numbers import format_currency, format_decimal

from .extract import AUTOMATIC

_NUMBER = re.compile(r"^([+-]?)(\$?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?((?: .*)?)$")
_COUNT = re.compile(r"^(\d{1,3}(?:,\d{3})+|\d+)(\+?)$")
_MONTHS = {name: i + 1 for i, name in enumerate(
    ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
     "November", "December"))}
assert set(_MONTHS) == AUTOMATIC
_MONTH_TITLE = re.compile(r"^([A-Z][a-z]+)(?: (\d{4}))?$")


@lru_cache(maxsize=64)
def _right_to_left(locale: str) -> bool:
    return bool(Locale.parse(locale).character_order == "right-to-left")


@lru_cache(maxsize=64)
def _pattern(fraction: int) -> str:
    return "#,##0" + ("." + "0" * fraction if fraction else "")


def number(text: str, locale: str) -> str | None:
    """An amount as the English views write it ('-1,234.500 ETH', '$9.99'), in `locale`; None
    when `text` is not one."""
    match = _NUMBER.match(text)
    if match is None:
        return None
    sign, dollar, whole, fraction, rest = match.groups()
    if not (dollar or fraction or "," in whole):
        return None  # a bare integer may be a year or an id: only amounts are rewritten
    try:
        value = Decimal(whole.replace(",", "") + ("." + fraction if fraction else ""))
    except InvalidOperation:
        return None
    digits = len(fraction or "")
    if dollar:
        body = format_currency(value, "USD", format=None, locale=locale, currency_digits=False,
                               numbering_system="default", decimal_quantization=True)
        if _right_to_left(locale):
            body = body.replace("US$", "US$\u200e")  # keeps '$' after 'US' in a right-to-left line
    else:
        body = format_decimal(value, format=_pattern(digits), locale=locale, numbering_system="default")
    return f"{sign}{body}{rest}"


def count(text: str, locale: str) -> tuple[str, int] | None:
    """A count captured from a template ('120+', '5', '1,200'): in `locale`, and its value for
    the plural rule."""
    match = _COUNT.match(text)
    if match is None:
        return None
    value = int(match.group(1).replace(",", ""))
    return format_decimal(value, locale=locale, numbering_system="default") + match.group(2), value


def month_title(text: str, locale: str) -> str | None:
    """An activity group's title: 'March' (this year) or 'March 2025'."""
    match = _MONTH_TITLE.match(text)
    if match is None or match.group(1) not in _MONTHS:
        return None
    month = _MONTHS[match.group(1)]
    if match.group(2) is None:
        return str(get_month_names("wide", context="stand-alone", locale=locale)[month])
    return format_skeleton("yMMMM", date(int(match.group(2)), month, 1), locale=locale)
