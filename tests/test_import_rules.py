"""Imports only go down, and nothing imports inside a function (issue 12 item 3).

The layer contract lives in pyproject.toml ([tool.importlinter]); `make test` runs it too.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import modalcore

PACKAGE = pathlib.Path(modalcore.__file__).parent
LINT_IMPORTS = pathlib.Path(sys.executable).with_name("lint-imports")
# The demo command imports uvicorn and the server when it runs (its port checks come first);
# start-up order, not a cycle.
CLI_MODULES = {"demo.py"}


def _imports_inside_functions(source: str, label: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found += [f"{label}:{sub.lineno} in {node.name}"
                      for sub in ast.walk(node) if isinstance(sub, ast.Import | ast.ImportFrom)]
    return found


def test_no_module_imports_inside_a_function() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path.name not in CLI_MODULES
             for hit in _imports_inside_functions(path.read_text(), str(path.relative_to(PACKAGE.parent)))]
    assert found == []


def test_the_check_sees_an_import_inside_a_function() -> None:
    assert _imports_inside_functions("def f() -> None:\n    import os\n", "sample") == ["sample:2 in f"]


def test_the_layer_contract_is_kept() -> None:
    done = subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=PACKAGE.parent, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout
