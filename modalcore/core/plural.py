"""A count with its noun in the right number, for what operators and testers read in English
(command output, logs): `counted(1, "entry", "entries")` is "1 entry". The modal's own text goes
through the i18n catalog (`{n}` plural forms), never through this."""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many if many is not None else one + 's')}"
