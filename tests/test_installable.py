"""The engine works installed from a wheel, outside the repository (issue 12 item 6).

Builds a wheel from a copy of the sources, installs it (`--no-deps`) into a fresh venv in a
temporary folder, lets that venv see this venv's dependencies through a `.pth` line (offline and
quick), then serves a session from it: the packaged data (wallet directory, transfer
interfaces) must come from the wheel, through `importlib.resources`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from modalcore.devchain.nodes import free_port
from modalcore.icons import token_mark
from modalcore.testing import TEST_ORIGIN, TEST_PROJECT, TEST_SECRET, Client

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"{args} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The python of a fresh venv with the modalcore wheel installed, outside the repository."""
    work = tmp_path_factory.mktemp("installed")
    source = work / "src"
    source.mkdir()
    shutil.copy(REPO / "pyproject.toml", source)
    shutil.copytree(REPO / "modalcore", source / "modalcore",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", work / "dist", source, cwd=work)
    wheels = list((work / "dist").glob("modalcore-*.whl"))
    assert len(wheels) == 1
    venv = work / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=work)
    python = venv / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index",
         wheels[0], cwd=work)
    shutil.rmtree(source)  # nothing of the sources is left beside the venv
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=work).strip())
    # this venv's dependencies, after the fresh venv's own site-packages (its .pth files are not run,
    # so the editable install of the repository stays out of sight)
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    yield python


def test_the_installed_package_is_the_wheel_not_the_repository(installed: Path) -> None:
    where = _run(installed, "-c", "import modalcore; print(modalcore.__file__)", cwd=installed.parents[2]).strip()
    assert Path(where).is_relative_to(installed.parents[1])
    assert not Path(where).is_relative_to(REPO)


def test_packaged_data_is_read_from_the_wheel(installed: Path) -> None:
    script = (
        "import json\n"
        "from modalcore.directory.query import load_directory\n"
        "from modalcore.services.transfer import interfaces\n"
        "print(json.dumps({'wallets': len(load_directory().wallets), 'default': interfaces().default}))\n"
    )
    found = json.loads(_run(installed, "-c", script, cwd=installed.parents[2]))
    assert found["wallets"] > 0
    assert found["default"]


async def test_an_installed_engine_serves_a_session(installed: Path) -> None:
    work = installed.parents[2]
    config = work / "engine.json"
    config.write_text(json.dumps({
        "secret": TEST_SECRET,
        "projects": {TEST_PROJECT: {"name": "Test dApp", "origins": [TEST_ORIGIN]}},
    }))
    port = free_port()
    process = subprocess.Popen(
        [str(installed), "-m", "modalcore", "serve", "--config", str(config), "--port", str(port),
         "--log-level", "warning"],
        cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=1):
                    break
            except OSError:
                if process.poll() is not None:
                    raise AssertionError(f"the engine exited: {process.stdout.read() if process.stdout else ''}")
                time.sleep(0.1)
        with urllib.request.urlopen(f"{base}/getWallets?projectId={TEST_PROJECT}&page=1&entries=4",
                                    timeout=5) as response:
            assert json.loads(response.read())["count"] > 0
        # the icon set's marks are packaged data too (issue 28)
        with urllib.request.urlopen(f"{base}{token_mark('ETH')}", timeout=5) as response:
            assert response.headers["content-type"] == "image/svg+xml" and response.read().startswith(b"<svg")
        async with Client.open(f"ws://127.0.0.1:{port}/ws?project={TEST_PROJECT}") as client:
            frames = await client.join()
            kinds = [frame["t"] for frame in frames]
            assert "joined" in kinds and "snapshot" in kinds
            snapshot = next(frame for frame in frames if frame["t"] == "snapshot")
            assert snapshot["tree"]["t"] == "modal"
    finally:
        process.terminate()
        process.wait(timeout=10)
