"""Small modules, small classes (issue 41, item 3): no module of `modalcore` over 400 lines and no
class with more than 20 methods of its own, so one reader can hold either at once. No exceptions:
the session stores, once one method per store operation, keep one object per concern instead
(`store.leases`, `store.notes`, `store.audit`, `store.analytics`: modalcore/store/base.py)."""

from __future__ import annotations

import ast
import pathlib

import modalcore

PACKAGE = pathlib.Path(modalcore.__file__).parent
MAX_LINES = 400
MAX_METHODS = 20


def oversized(root: pathlib.Path) -> dict[str, int]:
    """Modules over MAX_LINES lines (by path) and classes over MAX_METHODS methods of their own
    (by `path::Class`), with their size."""
    found: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        name = str(path.relative_to(root.parent))
        source = path.read_text()
        if (lines := len(source.splitlines())) > MAX_LINES:
            found[name] = lines
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                methods = sum(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for item in node.body)
                if methods > MAX_METHODS:
                    found[f"{name}::{node.name}"] = methods
    return found


def test_rule_no_module_over_400_lines_and_no_class_over_20_methods() -> None:
    assert oversized(PACKAGE) == {}


def test_the_size_check_sees_a_long_module_and_a_large_class(tmp_path: pathlib.Path) -> None:
    (tmp_path / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES)
    methods = "".join(f"    def m{n}(self) -> None: ...\n" for n in range(MAX_METHODS + 1))
    (tmp_path / "large.py").write_text("class Large:\n" + methods + "class Small:\n" + methods[:-len("    def m20(self) -> None: ...\n")])
    assert oversized(tmp_path) == {f"{tmp_path.name}/long.py": MAX_LINES + 1,
                                   f"{tmp_path.name}/large.py::Large": MAX_METHODS + 1}
