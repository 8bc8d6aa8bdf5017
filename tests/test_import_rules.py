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
ROOT = PACKAGE.parent
PACKAGES = ("modalcore", "modalcore_dev", "modalcore_testing")
LINT_IMPORTS = pathlib.Path(sys.executable).with_name("lint-imports")
# The demo command imports uvicorn and the server when it runs (its port checks come first);
# start-up order, not a cycle.
CLI_MODULES = {"modalcore_dev/demo.py"}


def _imports_inside_functions(source: str, label: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found += [f"{label}:{sub.lineno} in {node.name}"
                      for sub in ast.walk(node) if isinstance(sub, ast.Import | ast.ImportFrom)]
    return found


def test_no_module_imports_inside_a_function() -> None:
    paths = [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    found = [hit for path in paths if path.relative_to(ROOT).as_posix() not in CLI_MODULES
             for hit in _imports_inside_functions(path.read_text(), str(path.relative_to(ROOT)))]
    assert found == []


def test_the_check_sees_an_import_inside_a_function() -> None:
    assert _imports_inside_functions("def f() -> None:\n    import os\n", "sample") == ["sample:2 in f"]


def test_the_layer_contract_is_kept() -> None:
    done = subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=PACKAGE.parent, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


def test_the_engine_imports_no_dev_rig_or_test_harness() -> None:
    """The wheel holds `modalcore` only: an import of `modalcore_dev` or `modalcore_testing` from
    it would break an installed engine (pyproject's forbidden contract)."""
    found = [f"{path.relative_to(ROOT)}:{node.lineno}"
             for path in sorted(PACKAGE.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0)
             and any((name or "").split(".")[0] in PACKAGES[1:]
                     for name in ([node.module] if isinstance(node, ast.ImportFrom) else
                                  [alias.name for alias in node.names]))]
    assert found == []
