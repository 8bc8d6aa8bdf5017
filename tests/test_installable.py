"""The engine's wheel runs without a checkout (issue 29 item 1; issue 12 item 6).

Builds the wheel (`pip wheel .`) from a copy of what the build reads, development packages
included, installs it into a fresh venv in a temporary folder as docs/operators/install.md says
(issue 37): its dependencies exactly as locked (`requirements/engine.txt`, `--require-hashes
--no-deps`), then the wheel (`--no-deps`), and `pip check` finds the lock satisfies the wheel.
Then it runs the `modalcore` script there: a session joins over a real websocket (a handshake
that answers HTTP 500 fails the test), and the renderer bundle comes from `/static/modal.js`,
both from the wheel. Another test lists the wheel: the engine only, no dev rig, no test harness,
nothing importing pytest, Playwright or aiosmtpd; its metadata states its licence (with the
file), its readme and no `dev`/`test` extra, and `modalcore --version` prints its version.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

import modalcore
from modalcore.icons import token_mark
from modalcore.netports import free_port
from modalcore_testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET
from modalcore_testing.join_check import join_session

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements" / "engine.txt"  # the wheel's dependencies, exact and hashed (issue 37)
PIP = ("-m", "pip", "--disable-pip-version-check")
BUNDLE = REPO / "renderer" / "dist"
# setup.py's
STATIC_FILES = ("modal.js", "modal.js.br", "modal.js.gz", "loader.js", "loader.js.br", "loader.js.gz", "inspect.js")
# the wheel's modules that are development rigs or test harnesses (moved to modalcore_dev,
# modalcore_testing): a path part, or a module file name
DEV_PARTS = {"devchain", "bench", "latency", "relay"}
DEV_FILES = {"devmail.py", "devoidc.py", "devpage.py", "devproxy.py", "onramp_local.py",
             "devrelay.py", "democlient.py", "relay.py", "demo.py", "demopage.py", "testing.py",
             "chromium.py", "pytest_plugin.py", "conftest.py"}
DEV_IMPORTS = {"pytest", "playwright", "aiosmtpd", "modalcore_dev", "modalcore_testing", "hypothesis"}


def _outside() -> dict[str, str]:
    """The environment without this checkout on the import path (PYTHONPATH, a venv's)."""
    return {name: value for name, value in os.environ.items()
            if not name.startswith("PYTHON") and name != "VIRTUAL_ENV"}


def _run(*args: str | Path, cwd: Path, timeout: float = 300) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=_outside())
    if done.returncode != 0:
        raise AssertionError(f"{args} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _sources(into: Path, bundle: bool = True) -> Path:
    """What `pip wheel .` reads, copied (the checkout stays clean of build/ and egg-info)."""
    source = into / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "LICENSE", "README-wheel.md"):
        shutil.copy(REPO / name, source)
    for package in ("modalcore", "modalcore_dev", "modalcore_testing"):
        shutil.copytree(REPO / package, source / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if bundle:
        (source / "renderer" / "dist").mkdir(parents=True)
        for name in STATIC_FILES:
            shutil.copy(BUNDLE / name, source / "renderer" / "dist" / name)
    return source


def _build(work: Path, source: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(work / "dist"), str(source)], cwd=work, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for name in STATIC_FILES:
        assert (BUNDLE / name).is_file(), f"renderer/dist/{name} is missing: `make renderer` first"
    work = tmp_path_factory.mktemp("wheel")
    built = _build(work, _sources(work))
    assert built.returncode == 0, built.stdout + built.stderr
    wheels = list((work / "dist").glob("modalcore-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bin folder of a fresh venv outside the repository with the wheel and its locked
    dependencies (the Redis client of the `redis` extra among them), installed as operators do."""
    work = tmp_path_factory.mktemp("installed")
    venv = work / "venv"
    python = venv / "bin" / "python"
    _run(sys.executable, "-m", "venv", venv, cwd=work)
    _run(python, *PIP, "install", "--quiet", "--require-hashes", "--no-deps", "-r", LOCK, cwd=work, timeout=900)
    _run(python, *PIP, "install", "--quiet", "--no-deps", wheel, cwd=work, timeout=300)
    _run(python, *PIP, "check", cwd=work)  # the lock holds every dependency the wheel states
    yield venv / "bin"


def _wheel_modules(wheel: Path) -> dict[PurePosixPath, str]:
    with zipfile.ZipFile(wheel) as archive:
        return {PurePosixPath(name): archive.read(name).decode() for name in archive.namelist()
                if name.endswith(".py")}


def _imported(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def _dev_modules(modules: dict[PurePosixPath, str]) -> list[str]:
    return sorted(str(path) for path, source in modules.items()
                  if path.parts[0] != "modalcore" or path.name in DEV_FILES or DEV_PARTS & set(path.parts[:-1])
                  or _imported(source) & DEV_IMPORTS)


def test_the_wheel_holds_the_engine_and_its_bundle_and_no_dev_or_test_module(wheel: Path) -> None:
    modules = _wheel_modules(wheel)
    assert PurePosixPath("modalcore/server/app.py") in modules
    assert PurePosixPath("modalcore/replay/cli.py") in modules  # the operator tools are the engine's
    assert _dev_modules(modules) == []
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert {"modalcore/static/modal.js", "modalcore/static/inspect.js", "modalcore/inspect/page.html"} <= names
        assert archive.read("modalcore/static/modal.js") == (BUNDLE / "modal.js").read_bytes()
        # the script tag's loader (issue 40 item 8) names that modal.js by its hash: same build
        assert archive.read("modalcore/static/loader.js") == (BUNDLE / "loader.js").read_bytes()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert not [line for line in requires if "aiosmtpd" in line and "extra ==" not in line]
    assert not [line for line in requires if "redis" in line and "extra ==" not in line]  # the redis extra
    assert "modalcore = modalcore.__main__:main" in entry_points


def _metadata(wheel: Path) -> tuple[str, set[str]]:
    """The wheel's METADATA and the names it holds."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        return archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode(), names


def _published_version() -> str:
    return str(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"])


def test_the_wheel_states_its_licence_readme_and_no_extra_of_the_repo(wheel: Path) -> None:
    """Issue 37 item 6: the MIT licence with its file, the wheel's readme as its description,
    and only the extras that mean something outside the repository (`postgres`, `redis`)."""
    metadata, names = _metadata(wheel)
    headers = [line for line in metadata.split("\n\n")[0].splitlines()]
    assert "License-Expression: MIT" in headers
    assert "License-File: LICENSE" in headers
    assert next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    assert sorted(line for line in headers if line.startswith("Provides-Extra:")) == [
        "Provides-Extra: postgres", "Provides-Extra: redis"]
    assert "Description-Content-Type: text/markdown" in headers
    assert (REPO / "README-wheel.md").read_text().strip() in metadata
    assert f"Version: {_published_version()}" in headers


def test_the_package_version_is_the_published_one() -> None:
    """`modalcore --version` falls back to the package's constant when not installed: the same."""
    assert modalcore.__version__ == _published_version()


def test_modalcore_version_prints_the_installed_version(installed: Path) -> None:
    printed = _run(installed / "modalcore", "--version", cwd=installed.parents[1])
    assert printed == f"modalcore {_published_version()}\n"


async def test_a_websocket_that_cannot_join_fails_the_join_check() -> None:
    """The check the serve test makes fails on a handshake answered HTTP 500 (issue 37)."""
    async def answer_500(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer_500, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(AssertionError, match="handshake .* refused: .*HTTP 500"):
            await join_session(f"ws://127.0.0.1:{port}/ws?project={TEST_PROJECT}", origin=TEST_ORIGIN,
                               project=TEST_PROJECT)
    finally:
        server.close()
        await server.wait_closed()


def test_the_listing_check_finds_a_dev_module() -> None:
    """The check above can fail: a rig, a harness and a module importing pytest are each found."""
    found = _dev_modules({PurePosixPath("modalcore/devchain/nodes.py"): "",
                          PurePosixPath("modalcore_testing/__init__.py"): "",
                          PurePosixPath("modalcore/store/x.py"): "import pytest\n",
                          PurePosixPath("modalcore/store/y.py"): "from modalcore_dev.rigs import dev_rigs\n",
                          PurePosixPath("modalcore/store/memory.py"): "import asyncio\n"})
    assert found == ["modalcore/devchain/nodes.py", "modalcore/store/x.py", "modalcore/store/y.py",
                     "modalcore_testing/__init__.py"]


def test_a_wheel_without_the_renderer_bundle_is_refused(tmp_path: Path) -> None:
    built = _build(tmp_path, _sources(tmp_path, bundle=False))
    assert built.returncode != 0
    assert "renderer/dist lacks modal.js" in built.stdout + built.stderr
    assert not list((tmp_path / "dist").glob("*.whl"))


def test_the_installed_engine_has_no_dev_package_or_dev_dependency(installed: Path) -> None:
    script = ("import importlib.util, json, modalcore\n"
              "print(json.dumps({'at': modalcore.__file__, 'missing': [name for name in "
              "('modalcore_dev', 'modalcore_testing', 'pytest', 'aiosmtpd', 'playwright') "
              "if importlib.util.find_spec(name) is None]}))\n")
    found = json.loads(_run(installed / "python", "-c", script, cwd=installed.parents[1]))
    assert Path(found["at"]).is_relative_to(installed.parent) and not Path(found["at"]).is_relative_to(REPO)
    assert found["missing"] == ["modalcore_dev", "modalcore_testing", "pytest", "aiosmtpd", "playwright"]


def _wait_healthy(base: str, process: subprocess.Popen[str]) -> None:
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1):
                return
        except OSError:
            if process.poll() is not None:
                raise AssertionError(f"the engine exited: {process.stdout.read() if process.stdout else ''}")
            time.sleep(0.1)
    raise AssertionError("the engine did not answer /healthz")


async def test_modalcore_serve_from_the_wheel_joins_a_session_and_serves_the_modal(installed: Path) -> None:
    work = installed.parents[1]
    config = work / "engine.toml"
    config.write_text(f'secret = "{TEST_SECRET}"\n\n[projects.{TEST_PROJECT}]\nname = "Test dApp"\n'
                      f'origins = ["{TEST_ORIGIN}"]\n')
    port = free_port()
    process = subprocess.Popen(
        [str(installed / "modalcore"), "serve", "--config", str(config), "--port", str(port), "--log-level", "warning"],
        cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_outside())
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_healthy(base, process)
        with urllib.request.urlopen(f"{base}/static/modal.js", timeout=5) as response:
            assert response.read() == (BUNDLE / "modal.js").read_bytes()
        with urllib.request.urlopen(f"{base}/getWallets?projectId={TEST_PROJECT}&page=1&entries=4",
                                    timeout=5) as response:
            assert json.loads(response.read())["count"] > 0  # the wallet directory is package data
        with urllib.request.urlopen(f"{base}{token_mark('ETH')}", timeout=5) as response:
            assert response.headers["content-type"] == "image/svg+xml" and response.read().startswith(b"<svg")
        # a real websocket join (issue 37: every handshake once answered HTTP 500 here)
        await join_session(f"ws://127.0.0.1:{port}/ws?project={TEST_PROJECT}", origin=TEST_ORIGIN,
                           project=TEST_PROJECT)
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_dev_rig_or_redis_in_the_config_is_refused_by_the_installed_engine(installed: Path) -> None:
    """A dev rig always; Redis when the `redis` extra is not installed (the lock installs its
    client, so that run makes `redis` unimportable)."""
    work = installed.parents[1]
    without_redis = ("import sys\n"
                     "class NotInstalled:\n"
                     "    def find_spec(self, name, path=None, target=None):\n"
                     "        if name.split('.')[0] == 'redis':\n"
                     "            raise ModuleNotFoundError(f'No module named {name!r}', name='redis')\n"
                     "sys.meta_path.insert(0, NotInstalled())\n"
                     "from modalcore.__main__ import main\n"
                     "sys.exit(main(sys.argv[1:]))\n")
    for name, extra, command in (
            ("devchain.toml", "devchain_proxy = true\n", [str(installed / "modalcore")]),
            ("redis.toml", '[store]\nkind = "redis"\n', [str(installed / "python"), "-c", without_redis])):
        config = work / name
        config.write_text(f'secret = "{TEST_SECRET}"\n{extra}')
        done = subprocess.run([*command, "serve", "--config", str(config), "--port", "1"],
                              cwd=work, capture_output=True, text=True, timeout=60, env=_outside())
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.startswith("config: ") and "Traceback" not in done.stderr
        assert ("redis extra" in done.stderr) == (name == "redis.toml"), done.stderr
