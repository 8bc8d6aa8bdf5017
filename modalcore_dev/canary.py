"""`make canary`: would the newest releases break us? (issue 37)

In a scratch venv (`.venv-canary`; the lock is never touched) it installs the newest version
every range allows (pyproject.toml and requirements/*.in, resolved by the pinned uv), prints
which versions differ from the lock, and runs the checks a new release has broken before:
mypy over the engine and its tests, a real `modalcore serve` joined over a real websocket, and
the non-browser suite. When a check fails it bisects by package: a venv of the lock with one
newer release at a time, the failed checks run again, and the release that breaks them named.

Not part of `make test`: CI must be reproducible, and this asks the registry what is new today.
Standard library only (it runs before any venv exists); run from the repository's root.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "test.txt"
TOOL = ROOT / ".venv-lock"
SCRATCH = ROOT / ".venv-canary"
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)", re.MULTILINE)
SUITE = ["-m", "not e2e and not fresh_clone and not npm"]


@dataclass(frozen=True)
class Upgrade:
    name: str
    locked: str
    newest: str


@dataclass(frozen=True)
class Check:
    name: str
    argv: tuple[str, ...]  # run with the venv's python


def pins(text: str) -> dict[str, str]:
    return {name.lower().replace("_", "-"): version for name, version in PIN.findall(text)}


def upgrades(locked: dict[str, str], newest: dict[str, str]) -> list[Upgrade]:
    return [Upgrade(name, locked.get(name, "(not locked)"), version)
            for name, version in sorted(newest.items()) if locked.get(name) != version]


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, text=True, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


def _uv() -> Path:
    uv = TOOL / "bin" / "uv"
    if not uv.exists():
        _must([sys.executable, "-m", "venv", str(TOOL)])
        _must([str(TOOL / "bin" / "python"), "-m", "pip", "install", "--quiet",
               "--disable-pip-version-check", "--require-hashes", "-r", "requirements/lock-tool.txt"])
    return uv


def _must(argv: list[str]) -> None:
    if _run(argv).returncode != 0:
        raise SystemExit(f"canary: failed: {' '.join(argv)}")


# the extras requirements/lock.sh locks: the newest releases are resolved for the same installs
# (without `postgres`, the scratch venv had no psycopg and every canary failed)
LOCKED_EXTRAS = ("redis", "postgres")


def newest_versions(out: Path) -> dict[str, str]:
    extras = [arg for extra in LOCKED_EXTRAS for arg in ("--extra", extra)]
    _must([str(_uv()), "pip", "compile", "pyproject.toml", "requirements/test.in", *extras,
           "--upgrade", "--no-header", "--quiet", "--python-version", "3.11", "-o", str(out)])
    return pins(out.read_text())


def pinned_file(versions: dict[str, str], folder: Path) -> Path:
    """`name==version` lines, no hashes: a bisect mixes the lock with one newer release, whose
    hash the lock cannot know (pip's hash mode would refuse the mix)."""
    path = folder / "pins.txt"
    path.write_text("".join(f"{name}=={version}\n" for name, version in sorted(versions.items())))
    return path


def make_venv(venv: Path, versions: dict[str, str]) -> Path:
    shutil.rmtree(venv, ignore_errors=True)
    _must([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"]
    _must(pip + ["-r", str(pinned_file(versions, venv))])
    _must(pip + ["--no-build-isolation", "-e", "."])
    return python


def checks(cache: Path, last_failed: bool, tests: list[str]) -> list[Check]:
    """The checks; the suite (all of it, or `tests`) keeps pytest's cache in `cache`, and with
    `last_failed` runs only the tests that failed there."""
    suite = ("--lf",) if last_failed else (*(tests or ["tests"]), *SUITE)
    return [
        Check("mypy", ("-m", "mypy", "modalcore", "modalcore_dev", "modalcore_testing", "tests")),
        Check("serve + websocket join", ("-m", "modalcore_dev.canary_join")),
        Check("non-browser suite", ("-m", "pytest", "-q", "-o", f"cache_dir={cache}", *suite)),
    ]


def run_checks(python: Path, only: set[str] | None, cache: Path, last_failed: bool = False,
               tests: list[str] = []) -> list[str]:
    failed: list[str] = []
    for check in checks(cache, last_failed, tests):
        if only is not None and check.name not in only:
            continue
        print(f"canary: {check.name} ...", flush=True)
        result = _run([str(python), *check.argv], capture_output=True)
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        print(f"canary: {check.name}: {'ok' if result.returncode == 0 else 'FAILED'}\n{tail}\n", flush=True)
        if result.returncode != 0:
            failed.append(check.name)
    return failed


def bisect(found: list[Upgrade], locked: dict[str, str], failed: list[str], cache: Path) -> dict[str, list[str]]:
    """Each upgrade alone on top of the lock: which of the failed checks it breaks (the suite:
    only the tests that failed with every upgrade, from a fresh copy of that run's cache)."""
    blame: dict[str, list[str]] = {}
    for upgrade in found:
        print(f"canary: bisect: the lock plus {upgrade.name} {upgrade.newest} only", flush=True)
        python = make_venv(SCRATCH.with_name(".venv-canary-one"), {**locked, upgrade.name: upgrade.newest})
        copy = SCRATCH.with_name(".venv-canary-one") / "pytest-cache"
        shutil.copytree(cache, copy, dirs_exist_ok=True)
        broken = run_checks(python, set(failed), copy, last_failed=True)
        if broken:
            blame[f"{upgrade.name} {upgrade.locked} -> {upgrade.newest}"] = broken
    shutil.rmtree(SCRATCH.with_name(".venv-canary-one"), ignore_errors=True)
    return blame


def main() -> int:
    parser = argparse.ArgumentParser(prog="make canary", description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-bisect", action="store_true", help="stop after the first run")
    parser.add_argument("tests", nargs="*", help="run these test paths or ids instead of the whole non-browser suite")
    args = parser.parse_args()
    newest_file = Path(tempfile.mkdtemp(prefix="canary-")) / "newest.txt"
    newest = newest_versions(newest_file)
    locked = pins(LOCK.read_text())
    found = upgrades(locked, newest)
    print("canary: newer than the lock:" if found else "canary: the lock is the newest every range allows")
    for upgrade in found:
        print(f"  {upgrade.name:28} {upgrade.locked:>14} -> {upgrade.newest}")
    python = make_venv(SCRATCH, newest)
    shutil.rmtree(newest_file.parent)
    cache = SCRATCH / "pytest-cache"
    failed = run_checks(python, None, cache, tests=args.tests)
    if not failed:
        print("canary: every check passed with the newest releases")
        return 0
    if found and not args.no_bisect:
        blame = bisect(found, locked, failed, cache)
        print("canary: what breaks us:")
        print(json.dumps(blame, indent=2) if blame else
              "  no single upgrade alone: a combination, or the failure is not an upgrade's")
    print(f"canary: FAILED: {', '.join(failed)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
