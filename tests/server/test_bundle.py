"""The modal's script as host pages receive it (issue 40 item 7): brotli or gzip by
Accept-Encoding, an immutable content-hashed URL, and a short-cached stable one."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
import os
from pathlib import Path

import httpx
import pytest

from modalcore.server.bundle import BundleFiles, chosen_encoding, read_bundle
from modalcore_testing import start_server


def _raw(url: str, accept: str, **headers: str) -> tuple[httpx.Response, bytes]:
    with httpx.Client() as client, client.stream(
            "GET", url, headers={"Accept-Encoding": accept, **headers}) as response:
        return response, b"".join(response.iter_raw())


@pytest.fixture(scope="module")
def engine() -> Iterator[str]:
    with start_server() as server:
        yield server.http_url


def _plain(static: Path) -> bytes:
    return (static / "modal.js").read_bytes()


def test_the_stable_url_answers_brotli_then_gzip_then_plain_and_is_cached_five_minutes(engine: str) -> None:
    static = Path(__file__).resolve().parents[2] / "renderer" / "dist"
    response, body = _raw(f"{engine}/static/modal.js", "gzip, deflate, br")
    assert response.headers["content-encoding"] == "br"
    assert body == (static / "modal.js.br").read_bytes()
    assert response.headers["cache-control"] == "public, max-age=300"
    assert response.headers["vary"] == "Accept-Encoding"
    response, body = _raw(f"{engine}/static/modal.js", "gzip")
    assert response.headers["content-encoding"] == "gzip" and gzip.decompress(body) == _plain(static)
    response, body = _raw(f"{engine}/static/modal.js", "identity")
    assert "content-encoding" not in response.headers and body == _plain(static)
    assert response.headers["content-type"].startswith("text/javascript")
    # what a proxy or the visitor's browser revalidates with
    again, body = _raw(f"{engine}/static/modal.js", "identity", **{"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304 and body == b""


def test_the_hashed_url_is_immutable_and_named_by_the_engine(engine: str) -> None:
    named = httpx.get(f"{engine}/v1/engine").json()["bundle"]
    assert named.startswith("/static/modal.") and named.endswith(".js") and len(named) == len("/static/modal..js") + 12
    response, body = _raw(f"{engine}{named}", "br")
    assert response.status_code == 200 and response.headers["content-encoding"] == "br"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert httpx.get(f"{engine}/static/modal.000000000000.js").status_code == 404


def test_rule_the_loader_is_served_as_the_modal_is_and_names_the_hashed_modal_of_its_build(engine: str) -> None:
    """Issue 40 item 8: the `<script>` tag's file is the loader, compressed and cached as the modal
    is; the modal URL it fetches is the immutable hashed one the engine serves now (a loader and a
    modal of two builds never meet)."""
    static = Path(__file__).resolve().parents[2] / "renderer" / "dist"
    identity = httpx.get(f"{engine}/v1/engine").json()
    response, body = _raw(f"{engine}/static/loader.js", "gzip")
    assert response.headers["content-encoding"] == "gzip" and gzip.decompress(body) == (static / "loader.js").read_bytes()
    assert response.headers["cache-control"] == "public, max-age=300"
    assert identity["loader"].startswith("/static/loader.") and len(identity["loader"]) == len("/static/loader..js") + 12
    pinned, _ = _raw(f"{engine}{identity['loader']}", "br")
    assert pinned.status_code == 200 and pinned.headers["cache-control"] == "public, max-age=31536000, immutable"
    hashed_modal = identity["bundle"].removeprefix("/static/")
    assert f'"{hashed_modal}"'.encode() in (static / "loader.js").read_bytes()
    assert httpx.get(f"{engine}/static/loader.000000000000.js").status_code == 404


def test_a_compressed_copy_older_than_the_bundle_is_not_served(tmp_path: Path) -> None:
    (tmp_path / "modal.js.br").write_bytes(b"stale")
    (tmp_path / "modal.js").write_bytes(b"console.log('new build')")
    os.utime(tmp_path / "modal.js.br", ns=(1, 1))
    bundle = read_bundle(tmp_path / "modal.js")
    assert bundle is not None and "br" not in bundle.bodies
    assert gzip.decompress(bundle.bodies["gzip"]) == b"console.log('new build')"
    files = BundleFiles(tmp_path)
    first = files.current()
    (tmp_path / "modal.js").write_bytes(b"console.log('rebuilt')")
    os.utime(tmp_path / "modal.js", ns=(10**18, 10**18))
    assert files.current() != first  # a rebuild under `make run` is served without a restart


def test_accept_encoding_is_read_with_its_weights() -> None:
    both = {"identity", "br", "gzip"}
    assert chosen_encoding("br;q=0, gzip", both) == "gzip"
    assert chosen_encoding("*", both) == "br"
    assert chosen_encoding("gzip;q=0, br;q=0", both) == "identity"
    assert chosen_encoding("", both) == "identity"
    assert chosen_encoding("br;q=zz, gzip", both) == "gzip"
