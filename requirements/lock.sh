#!/usr/bin/env bash
# `make lock`: rewrite the Python locks (requirements/*.txt) from pyproject.toml and
# requirements/*.in, with hashes, for Linux and CPython 3.11 (the machines we run on).
# The resolver is uv (pinned in requirements/lock-tool.txt, in its own venv); the installs
# themselves are plain `pip install --require-hashes --no-deps` (docs/contributors/dependencies.md).
#
#   make lock                          newest versions the ranges allow, for every package
#   make lock UPGRADE="uvicorn redis"  keep the lock, move only the packages named
#   LOCK_DATE=2026-11-27T22:00:00Z make lock   as the registry stood at that moment
set -euo pipefail
cd "$(dirname "$0")/.."
tool=.venv-lock
if [ ! -x "$tool/bin/uv" ]; then
  python3 -m venv "$tool"
  "$tool/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements/lock-tool.txt
fi
args=(--generate-hashes --no-header --python-version 3.11 --python-platform x86_64-manylinux_2_28 --quiet)
[ -n "${LOCK_DATE:-}" ] && args+=(--exclude-newer "$LOCK_DATE")
for package in ${UPGRADE:-}; do args+=(--upgrade-package "$package"); done
[ -z "${UPGRADE:-}" ] && args+=(--upgrade)
uv="$tool/bin/uv"
# test.txt is the superset; the others take its versions (-c), so every install agrees.
"$uv" pip compile pyproject.toml requirements/test.in --extra redis --extra postgres "${args[@]}" -o requirements/test.txt
"$uv" pip compile pyproject.toml requirements/dev.in --extra redis --extra postgres -c requirements/test.txt "${args[@]}" -o requirements/run.txt
"$uv" pip compile pyproject.toml --extra redis --extra postgres -c requirements/test.txt "${args[@]}" -o requirements/engine.txt
# SpruceID's siwe has its own venv (its pins would pull the engine's back): its own lock.
"$uv" pip compile tests/siwx/interop/requirements.in "${args[@]}" -o tests/siwx/interop/requirements.txt
echo "locked: requirements/test.txt run.txt engine.txt, tests/siwx/interop/requirements.txt"
