"""Plain HTTP: health and the renderer's static files (the dev-chain proxy: test_devproxy.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modalcore.testing import RunningServer, make_test_config, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    static = tmp_path_factory.mktemp("dist")
    (static / "index.html").write_text("<!doctype html><title>demo</title>")
    (static / "modal.js").write_text("console.log('modal')")
    with start_server(make_test_config(static_dir=str(static))) as running:
        yield running


def get(server: RunningServer, path: str) -> httpx.Response:
    return httpx.get(server.http_url + path, timeout=5)


def test_healthz(server: RunningServer) -> None:
    response = get(server, "/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "sessions": 0}


def test_index_and_static_files(server: RunningServer) -> None:
    assert "<title>demo</title>" in get(server, "/").text
    script = get(server, "/static/modal.js")
    assert script.status_code == 200 and "modal" in script.text
    assert get(server, "/static/missing.js").status_code == 404


def test_index_says_how_to_build_when_missing(tmp_path: Path) -> None:
    with start_server(make_test_config(static_dir=str(tmp_path / "nothing"))) as bare:
        response = get(bare, "/")
    assert response.status_code == 200 and "make renderer" in response.text
