"""How many `Any`s `modalcore` uses, per top-level package (issue 30: fewer where data crosses the
seam between the pure core and the runtime).

    python -m modalcore_dev.bench.any_count [--modules]

Counts every use of the name `Any` (`Any`, `typing.Any`, `t.Any`) in the AST of every module under
`modalcore/`, and each `Any` word inside a quoted annotation ("dict[str, Any]"); imports are not
counted: an annotation `dict[str, Any]` is one, a `cast(Any, x)` another, `TypeAdapter[Any]` one.
`--modules` lists each module too. `make bench` prints the total (section "code"), and
tests/test_any_ceiling.py fails when it rises above `CEILING` (issue 41 item 2: a ratchet, lowered
as the count goes down; the goal is `GOAL`).
"""

from __future__ import annotations

import argparse
import ast
import pathlib
from collections import Counter

import modalcore
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line

PACKAGE = pathlib.Path(modalcore.__file__).parent
CEILING = 291  # the count today: lower it when you remove some, never raise it
GOAL = 300


def any_uses(source: str) -> int:
    count = 0
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id == "Any":
            count += 1
        elif isinstance(node, ast.Attribute) and node.attr == "Any" and isinstance(node.value, ast.Name) \
                and node.value.id in ("typing", "t"):
            count += 1
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_annotation_text(node.value):
            count += node.value.replace("[", " ").replace("]", " ").replace(",", " ").split().count("Any")
    return count


def _is_annotation_text(text: str) -> bool:
    """A quoted annotation ("dict[str, Any]"), not prose that says Any."""
    return "Any" in text and len(text) < 80 and " " not in text.replace(", ", ",").strip()


def per_module(root: pathlib.Path = PACKAGE) -> dict[str, int]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        uses = any_uses(path.read_text())
        if uses:
            found[path.relative_to(root.parent).as_posix()] = uses
    return found


def per_package(modules: dict[str, int]) -> dict[str, int]:
    totals: Counter[str] = Counter()
    for path, uses in modules.items():
        parts = path.split("/")
        totals[parts[1].removesuffix(".py") if len(parts) > 2 or parts[1] != "__init__.py" else "."] += uses
    return dict(sorted(totals.items(), key=lambda item: (-item[1], item[0])))


def total() -> int:
    return sum(per_module().values())


def run(parts: Parts) -> Lines:
    """The bench's "code" section: the `Any` count (cheap: one parse of each module)."""
    count = total()
    return ["Code:", line("`Any` in modalcore/ (AST uses, imports excluded)", f"{count} (ceiling {CEILING})",
                          goal=f"≤ {GOAL}", measured=[count])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", action="store_true", help="list every module with its count")
    args = parser.parse_args()
    modules = per_module()
    for package, uses in per_package(modules).items():
        print(f"{uses:5d}  {package}")
    print(f"{sum(modules.values()):5d}  total")
    if args.modules:
        print()
        for path, uses in sorted(modules.items(), key=lambda item: (-item[1], item[0])):
            print(f"{uses:5d}  {path}")


if __name__ == "__main__":
    main()
