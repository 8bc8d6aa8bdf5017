"""behaviour.md "Trust boundaries": in `make run` the demo page and the engine are two origins (two
loopback ports), and the demo project allows only the page's origin, so the approval frame on the
engine's origin is cross-origin to the page that embeds the modal."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import httpx
from starlette.testclient import TestClient

from modalcore_dev.__main__ import build_parser
from modalcore_dev.demopage import create_page_app, demo_project, page_html
from modalcore.server.app import create_app
from modalcore_dev.rigs import dev_rigs
from modalcore.server.config import parse_config

REPO = Path(__file__).resolve().parents[2]
ENGINE = "http://127.0.0.1:7001"
PAGE = "http://127.0.0.1:7002"


def demo_config() -> dict[str, object]:
    return {"projects": {"demo": demo_project("127.0.0.1", 7002)}, "devchain_proxy": True,
            "store": {"kind": "memory"}}


def test_the_demo_project_allows_the_page_origin_and_not_the_engine_origin() -> None:
    config = parse_config(demo_config())
    assert config.allows_origin(PAGE) and config.allows_origin("http://localhost:7002")
    assert not config.allows_origin(ENGINE)  # the engine's own origin is not a host page
    assert not config.allows_origin("http://127.0.0.1:7003")  # behaviour.md §9's loopback default is off


def test_the_page_loads_the_modal_from_the_engine_origin(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text('<script src="/static/modal.js"></script><script src="/static/demo.js"></script>')
    assert page_html((tmp_path / "index.html").read_text(), ENGINE + "/") == (
        f'<script src="{ENGINE}/static/modal.js"></script><script src="{ENGINE}/static/demo.js"></script>')
    with TestClient(create_page_app(tmp_path, ENGINE)) as client:
        body = client.get("/").text
    assert f'src="{ENGINE}/static/modal.js"' in body and 'src="/static/' not in body


def test_the_page_forwards_devchain_calls_with_its_origin_to_the_engine_proxy(tmp_path: Path) -> None:
    demo = parse_config(demo_config())
    engine = create_app(demo, rigs=dev_rigs(demo))
    page = create_page_app(tmp_path, ENGINE)
    page.state.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=engine), base_url=ENGINE)
    call = b'{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
    with TestClient(page) as client:
        json_type = {"content-type": "application/json"}
        from_page = client.post("/devchain/31337", content=call, headers={**json_type, "origin": PAGE})
        from_engine = client.post("/devchain/31337", content=call, headers={**json_type, "origin": ENGINE})
        too_big = client.post("/devchain/31337", content=b"x" * (64 * 1024 + 1), headers={**json_type, "origin": PAGE})
    # the engine saw the page's origin (allowed: it then finds no dev chain 31337 in this config)
    assert from_page.status_code == 404 and "no dev chain" in from_page.text
    assert from_engine.status_code == 403 and "origin not allowed" in from_engine.text
    assert too_big.status_code == 413


def test_make_run_allow_origin_lets_a_developers_own_app_join_the_demo_project() -> None:
    """Issue 40 item 3: `make run ALLOW_ORIGIN=http://localhost:5173` (demo --allow-origin)."""
    args = build_parser().parse_args(["demo", "--allow-origin", "http://localhost:5173/",
                                      "--allow-origin", "https://app.example"])
    assert args.allow_origin == ["http://localhost:5173", "https://app.example"]
    config = parse_config({"projects": {"demo": demo_project("127.0.0.1", 7002, args.allow_origin)},
                           "store": {"kind": "memory"}})
    assert config.allows_origin("http://localhost:5173") and config.allows_origin("https://app.example")
    assert config.allows_origin(PAGE) and not config.allows_origin("http://localhost:5174")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--allow-origin", "localhost:5173/app"])
    recipe = subprocess.run(["make", "-n", "run", "ALLOW_ORIGIN=http://localhost:5173"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout
    assert "--allow-origin http://localhost:5173" in recipe
