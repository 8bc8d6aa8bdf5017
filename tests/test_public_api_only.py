"""The engine uses other libraries through their public API only (issue 37): a uvicorn release
that changed a private module broke every handshake of an engine that subclassed its protocol.
What an operator installs (`modalcore/`) imports no underscored module of another library and
no uvicorn module but the top-level package (`uvicorn.run`, `Config`, `Server`)."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "modalcore"


def _imported_modules(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def _private(module: str) -> bool:
    parts = module.split(".")
    if parts[0] in ("modalcore", "__future__") or len(parts) == 1:
        return False
    if parts[0] == "uvicorn":
        return True
    return any(part.startswith("_") for part in parts[1:])


def test_the_engine_imports_no_private_module_of_another_library() -> None:
    offenders = [f"{path.relative_to(ENGINE.parent)}: {module}"
                 for path in sorted(ENGINE.rglob("*.py"))
                 for module in _imported_modules(ast.parse(path.read_text()))
                 if _private(module)]
    assert offenders == []


def test_the_check_sees_a_private_import() -> None:
    tree = ast.parse("from uvicorn.protocols.utils import ClientDisconnected\n"
                     "import eth_account._utils.signing\nimport uvicorn\nfrom starlette.routing import Route\n")
    assert [m for m in _imported_modules(tree) if _private(m)] == [
        "uvicorn.protocols.utils", "eth_account._utils.signing"]
