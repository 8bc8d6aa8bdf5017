# Two commands on a fresh machine: `make run` and `make test`. Each installs what it needs
# (idempotent, quick the second time).

PY      := .venv/bin/python
STAMP   := .venv/.installed
RUNSTAMP := .venv/.installed-run
# SpruceID's siwe for Python and for JavaScript: independent EIP-4361 implementations the tests
# check sign-in messages with. The Python one has its own venv because its pins would pull the
# engine's back (tests/siwx/interop/requirements.txt).
SIWE_STAMP := .venv-siwe/.installed
SIWE_JS    := tests/siwx/interop/node_modules/.installed
NPM_CI  := npm ci --no-audit --no-fund --loglevel=error
HOST    ?= 127.0.0.1
PORT    ?= 8700
# page origins (besides the demo page's own) allowed to open sessions with the demo project:
# `make run ALLOW_ORIGIN="http://localhost:5173"` runs your own app against the demo engine
ALLOW_ORIGIN ?=

.PHONY: lock canary run test wheel test-python test-renderer bench fuzz deps renderer sdk chain chromium redis nginx postgres typecheck imports icons clean

deps: $(STAMP) $(SIWE_STAMP) $(SIWE_JS) renderer/dist/modal.js chain/node_modules/.installed bundler/node_modules/.installed walletpeer/node_modules/.installed oidcprovider/node_modules/.installed

# Every Python install comes from a lock (requirements/*.txt, exact versions with hashes;
# `make lock` rewrites them, docs/contributors/dependencies.md): the packages first, exactly as
# locked (--no-deps: nothing the lock does not name), then the repo itself, editable and without
# build isolation (its build backend, setuptools, is in the lock too). The editable install maps
# the engine (`modalcore`) and what runs beside it in development (`modalcore_dev`,
# `modalcore_testing`; setup.py); a wheel (`make wheel`) holds the engine only.
PIP_LOCKED := -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r
PIP_SELF   := -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .

$(STAMP): requirements/test.txt pyproject.toml setup.py
	test -x $(PY) || python3 -m venv .venv
	$(PY) $(PIP_LOCKED) requirements/test.txt
	$(PY) $(PIP_SELF)
	touch $@ $(RUNSTAMP)

# `make run` needs the engine's own packages and the dev rigs' only (no playwright, mypy, hypothesis, pytest).
$(RUNSTAMP): requirements/run.txt pyproject.toml setup.py
	test -x $(PY) || python3 -m venv .venv
	$(PY) $(PIP_LOCKED) requirements/run.txt
	$(PY) $(PIP_SELF)
	touch $@

$(SIWE_STAMP): tests/siwx/interop/requirements.txt
	test -x .venv-siwe/bin/python || python3 -m venv .venv-siwe
	.venv-siwe/bin/python $(PIP_LOCKED) tests/siwx/interop/requirements.txt
	touch $@

$(SIWE_JS): tests/siwx/interop/package-lock.json
	cd tests/siwx/interop && $(NPM_CI)
	touch $@

renderer/node_modules/.installed: renderer/package-lock.json
	cd renderer && $(NPM_CI)
	touch $@

renderer/dist/modal.js: renderer/node_modules/.installed $(shell find renderer/src renderer/demo -type f 2>/dev/null) renderer/build.mjs
	cd renderer && node build.mjs

chain/node_modules/.installed: chain/package-lock.json
	cd chain && $(NPM_CI)
	touch $@

# A real ERC-4337 bundler (Pimlico's alto, pinned in bundler/package-lock.json), one per dev
# chain, started by `make run` and the tests on 127.0.0.1 (issue 32).
bundler/node_modules/.installed: bundler/package-lock.json
	cd bundler && $(NPM_CI)
	touch $@

# The WalletConnect test wallet: the official sign-client, pinned (walletpeer/package-lock.json).
walletpeer/node_modules/.installed: walletpeer/package-lock.json
	cd walletpeer && $(NPM_CI)
	touch $@

# A real OpenID Connect provider (panva's oidc-provider, pinned) for social sign-in (issue 15).
oidcprovider/node_modules/.installed: oidcprovider/package-lock.json
	cd oidcprovider && $(NPM_CI)
	touch $@

renderer: renderer/dist/modal.js

# The engine's wheel into dist/: `modalcore` with the renderer bundle as package data (setup.py
# refuses to build without it); no dev rig, no test harness; built with the locked setuptools (no
# build isolation). Install it with the lock: `pip install --require-hashes --no-deps -r
# requirements/engine.txt`, then `pip install --no-deps dist/modalcore-*.whl` (docs/operators/install.md);
# run `modalcore serve`.
wheel: renderer/dist/modal.js $(RUNSTAMP)
	$(PY) -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation -w dist .

# The brand marks the engine serves (issue 28): a handful of SVGs taken from the pinned icon set
# (icons/package-lock.json, 81 MB installed) into modalcore/data/icons, which is committed, so
# `make run` and `make test` never install the set. Run after a version bump or a new mark.
icons:
	cd icons && $(NPM_CI) && node extract.mjs

# The npm package @modalcore/sdk (sdk/, built from renderer/src/sdk into sdk/dist; `npm pack` there).
sdk: renderer/dist/modal.js
	cd renderer && node build-sdk.mjs
chain: chain/node_modules/.installed

# Debian's Chromium for the end-to-end tests (CI runs as root). Playwright never downloads one.
chromium:
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "Chromium is missing: run 'sudo apt-get install -y chromium'"; exit 1; fi; }

# Debian's redis-server for the Redis store's tests and the load tool (started by them on a free
# loopback port, no persistence; never as a system service here).
redis:
	@command -v redis-server >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	  else echo "redis-server is missing: run 'sudo apt-get install -y redis-server'"; exit 1; fi; }

# Debian's PostgreSQL 15 for the durable store's tests (issue 42): each test run starts a throwaway
# cluster of its own (initdb + postgres on a free loopback port, modalcore_testing/postgres.py);
# the package's own system cluster is stopped and never used.
postgres:
	@test -n "$$(ls /usr/lib/postgresql/*/bin/postgres 2>/dev/null)" || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null \
	    && { service postgresql stop >/dev/null 2>&1 || true; }; \
	  else echo "PostgreSQL is missing: run 'sudo apt-get install -y postgresql'"; exit 1; fi; }

# Debian's nginx for the reverse-proxy test (config/nginx.example.conf, issue 17): the test runs
# its own nginx on a free loopback port; never as a system service here.
nginx:
	@test -x /usr/sbin/nginx || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; \
	  else echo "nginx is missing: run 'sudo apt-get install -y nginx-light'"; exit 1; fi; }

# Everything the demo starts: the chains and their bundlers, the WalletConnect demo wallet page (walletpeer) and the
# local OpenID provider (tests/test_fresh_clone.py runs this on a fresh clone, issue 28).
# The demo records every session into RECORD_DIR, so a failure screen's "Copy support code"
# opens a replay there (`python -m modalcore doctor replay CODE --record-dir .run/recordings`).
RECORD_DIR ?= .run/recordings
run: $(RUNSTAMP) renderer/dist/modal.js chain/node_modules/.installed bundler/node_modules/.installed walletpeer/node_modules/.installed oidcprovider/node_modules/.installed
	$(PY) -m modalcore_dev demo --host $(HOST) --port $(PORT) --record-dir $(RECORD_DIR) $(foreach origin,$(ALLOW_ORIGIN),--allow-origin $(origin))

# make test must stay under 30 minutes on CI's 2 cores, installs included: pytest-xdist runs one
# test file per worker on every core (at most 4: each worker starts its own session-wide chains,
# Redis and PostgreSQL); --durations names the slowest tests in the CI log.
TEST_WORKERS ?= auto
test: deps chromium redis nginx postgres typecheck imports docs
	cd renderer && npm test --silent
	$(PY) -m pytest -q -n $(TEST_WORKERS) --maxprocesses 4 --dist loadfile --durations=40

# The documentation site (mkdocs.yml, docs/) into artifacts/site; --strict fails on a broken link
# between pages. docs/gen_reference.py rewrites the generated reference pages (a test checks them).
docs: $(STAMP)
	$(PY) -m mkdocs build --strict --quiet

test-python: deps redis nginx postgres
	$(PY) -m pytest -q -m "not e2e and not fresh_clone"

# The load tool (issue 17) against `python -m modalcore serve` workers over real websockets,
# bounded here; run it by hand with larger sizes (see docs/operators/capacity.md).
LOAD_IDLE    ?= 200
LOAD_ACTIVE  ?= 100
LOAD_RATE    ?= 1
LOAD_SECONDS ?= 10
bench: deps chromium redis postgres
	$(PY) -m modalcore_dev.bench --load-idle $(LOAD_IDLE) --load-active $(LOAD_ACTIVE) --load-rate $(LOAD_RATE) --load-seconds $(LOAD_SECONDS)

# A long fuzz campaign (issue 11) against `python -m modalcore serve` in its own process:
# at least 100,000 hostile frames over many sockets, bounded in time; prints frames/s, replies
# by kind and the server's RSS before and after; fails on any broken promise or traceback.
FUZZ_FRAMES  ?= 110000
FUZZ_SECONDS ?= 900
fuzz: deps
	$(PY) -m modalcore_dev.bench.fuzz --frames $(FUZZ_FRAMES) --seconds $(FUZZ_SECONDS)

# Imports only go down: rules < wire < core < slices < flows < views < engine < runtime < server
imports: deps
	.venv/bin/lint-imports

# mypy strict over the engine and its tests (issue 12 item 10); the generated node, frame and host
# option types are current (issues 30, 40)
typecheck: deps
	$(PY) -m mypy modalcore modalcore_dev modalcore_testing tests
	$(PY) -m modalcore.typegen --check
	cd renderer && npm run typecheck --silent

# Rewrite the Python locks from pyproject.toml and requirements/*.in (requirements/lock.sh):
# `make lock` takes the newest versions the ranges allow; `make lock UPGRADE="uvicorn"` moves one.
lock:
	bash requirements/lock.sh

# The newest releases every range allows, in a scratch venv (the lock is never touched): the
# non-browser suite and a real websocket join against `serve`; names what differs from the lock
# and, on a failure, which upgrade broke it (modalcore_dev/canary.py; not part of `make test`).
# `make canary CANARY_TESTS="tests/server"` runs those tests instead of the whole suite.
canary: renderer/dist/modal.js redis nginx postgres
	python3 -m modalcore_dev.canary $(CANARY_TESTS)

clean:
	rm -rf .venv .venv-siwe .venv-lock .venv-canary .venv-canary-one tests/siwx/interop/node_modules icons/node_modules renderer/node_modules renderer/dist chain/node_modules walletpeer/node_modules oidcprovider/node_modules artifacts
