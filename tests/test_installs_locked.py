"""Every install the repository makes comes from a lock (issue 37): the Python ones from
requirements/*.txt with hashes, every npm folder from its package-lock.json with `npm ci`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _tracked(pattern: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", pattern, f"*/{pattern}"], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    return [REPO / line for line in out.splitlines()]


def test_every_npm_folder_with_dependencies_has_its_lock() -> None:
    missing = []
    for manifest in _tracked("package.json"):
        declared = json.loads(manifest.read_text())
        if declared.get("dependencies") or declared.get("devDependencies"):
            if not (manifest.parent / "package-lock.json").is_file():
                missing.append(str(manifest.relative_to(REPO)))
    assert missing == []


def test_the_makefile_installs_python_and_npm_packages_only_from_locks() -> None:
    recipe = subprocess.run(["make", "-n", "-B", "deps", "run"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout
    pip = [line for line in recipe.splitlines() if "pip install" in line]
    assert pip, "no pip install in make's recipes"
    for line in pip:
        assert ("--require-hashes" in line and "--no-deps" in line) or line.rstrip().endswith("-e ."), line
    npm = [line for line in recipe.splitlines() if re.search(r"\bnpm (ci|install|i)\b", line)]
    assert npm and all("npm ci" in line for line in npm), npm


def test_every_python_lock_pins_each_package_with_a_hash() -> None:
    for lock in [*sorted((REPO / "requirements").glob("*.txt")), REPO / "tests/siwx/interop/requirements.txt"]:
        text = lock.read_text()
        entries = re.split(r"\n(?=[A-Za-z0-9])", text.strip())
        pinned = [e for e in entries if not e.startswith("#")]
        assert pinned, lock
        for entry in pinned:
            assert re.match(r"^[A-Za-z0-9_.\-\[\]]+==\S+", entry), f"{lock.name}: {entry[:60]}"
            assert "--hash=sha256:" in entry, f"{lock.name}: {entry[:60]}"
