"""Issue 41 item 2: `Any` in `modalcore/` goes down, never up. The count (what
`modalcore_dev/bench/any_count.py` counts: every `Any` name or `typing.Any` in the code and in
quoted annotations, imports excluded; `make bench` prints it) is at most `CEILING`, the count the
last change reached: a change that adds an `Any` fails here, one that removes some lowers it."""

from __future__ import annotations

from modalcore_dev.bench import any_count


def test_rule_the_any_count_in_modalcore_is_at_most_the_ceiling() -> None:
    modules = any_count.per_module()
    total = sum(modules.values())
    worst = sorted(modules.items(), key=lambda item: -item[1])[:10]
    assert total <= any_count.CEILING, (f"{total} uses of Any in modalcore/ (ceiling {any_count.CEILING}): "
                                        f"type the new ones; the most: {worst}")


def test_rule_the_count_is_of_uses_not_imports_nor_prose() -> None:
    source = '''
from typing import Any
import typing
x: dict[str, Any] = {}
y: "list[Any]" = []
z = typing.Any
def f(a: Any) -> None:
    """Takes Any value at all."""
'''
    assert any_count.any_uses(source) == 4
