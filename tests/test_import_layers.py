"""Every module of `modalcore` sits in a layer of the import contract (issue 30): a new top-level
package, or a new folder of a package split by layer (`domain/`, `backend/`, issue 41), that no
layer names would be checked by nothing, so this test fails until pyproject.toml's
[tool.importlinter] places it."""

from __future__ import annotations

import ast
import pathlib
import re
import tomllib

import modalcore

PACKAGE = pathlib.Path(modalcore.__file__).parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"


def _layered_modules(config: dict[str, object]) -> set[str]:
    """The module names the layers contracts name, containers expanded."""
    contracts = config.get("contracts", [])
    assert isinstance(contracts, list)
    named: set[str] = set()
    for contract in contracts:
        if contract.get("type") != "layers":
            continue
        containers = contract.get("containers") or [""]
        for layer in contract["layers"]:
            for name in re.split(r"[|:]", layer):
                name = name.strip().strip("()")
                named |= {f"{container}.{name}" if container else name for container in containers}
    return named


def _modules(root: pathlib.Path) -> dict[str, pathlib.Path]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports_only_its_own_package(path: pathlib.Path) -> bool:
    """A package's `__init__` that no layer names is fine while it only imports its own modules
    (those are placed)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level != 1:
            if node.level > 1 or (node.module or "").split(".")[0] == "modalcore":
                return False
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "modalcore" for a in node.names):
            return False
    return True


def unplaced(modules: dict[str, pathlib.Path], named: set[str]) -> list[str]:
    """Modules that no layer names, neither themselves nor a package above them."""
    def placed(name: str) -> bool:
        parts = name.split(".")
        return any(".".join(parts[:n]) in named for n in range(2, len(parts) + 1))

    return [name for name, path in modules.items()
            if name != "modalcore" and not placed(name)
            and not (path.name == "__init__.py" and _imports_only_its_own_package(path))]


def _config() -> dict[str, object]:
    config: dict[str, object] = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    return config


def test_every_module_of_modalcore_sits_in_a_layer_of_the_import_contract() -> None:
    assert unplaced(_modules(PACKAGE), _layered_modules(_config())) == []


def test_every_top_level_package_of_modalcore_is_named_in_a_layer() -> None:
    named = _layered_modules(_config())
    tops = {name.split(".")[1] for name in _modules(PACKAGE) if name != "modalcore"}
    assert sorted(top for top in tops
                  if not any(n == f"modalcore.{top}" or n.startswith(f"modalcore.{top}.")
                             for n in named)) == []


def test_a_new_top_level_package_in_no_layer_is_reported(tmp_path: pathlib.Path) -> None:
    modules = _modules(PACKAGE)
    package = tmp_path / "modalcore" / "newfeature"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from ..runtime import runner\n")
    (package / "logic.py").write_text("")
    modules |= _modules(tmp_path / "modalcore")
    assert unplaced(modules, _layered_modules(_config())) == ["modalcore.newfeature",
                                                              "modalcore.newfeature.logic"]


def test_a_new_module_beside_the_layer_folders_of_a_split_package_is_reported(tmp_path: pathlib.Path) -> None:
    (tmp_path / "modalcore" / "siwx").mkdir(parents=True)
    (tmp_path / "modalcore" / "siwx" / "replay_guard.py").write_text("")
    modules = _modules(PACKAGE) | _modules(tmp_path / "modalcore")
    assert unplaced(modules, _layered_modules(_config())) == ["modalcore.siwx.replay_guard"]


def modules_named_in_layers(named: set[str], modules: dict[str, pathlib.Path]) -> list[str]:
    """Entries below the top level that name a module, not a package (issue 41: folders follow
    the layers, so a new module joins its folder's layer without an entry of its own)."""
    return sorted(name for name in named if name.count(".") > 1 and name in modules
                  and modules[name].name != "__init__.py")


def test_rule_the_layers_name_packages_not_modules() -> None:
    assert modules_named_in_layers(_layered_modules(_config()), _modules(PACKAGE)) == []


def test_the_package_rule_sees_a_module_named_in_a_layer() -> None:
    named = _layered_modules(_config()) | {"modalcore.siwx.domain.message"}
    assert modules_named_in_layers(named, _modules(PACKAGE)) == ["modalcore.siwx.domain.message"]


def test_the_clock_sink_and_observer_interfaces_sit_below_the_slices() -> None:
    layers = [layer for contract in _config()["contracts"]  # type: ignore[attr-defined]
              if contract["type"] == "layers" for layer in contract["layers"]]
    position = {name.strip(): index for index, layer in enumerate(layers)
                for name in re.split(r"[|:]", layer)}
    assert position["ports"] > position["slices"] > position["runtime"]
