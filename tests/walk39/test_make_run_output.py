"""What `make run` prints (issue 39 item 8): the demo page first and last, each line saying which
address is the page and which the engine (`PORT=` moves the engine, the page has its own free
port); the Farcaster and bundler lines come before the closing block, not after the page; the
email codes live on the engine's address, whatever PORT is; README names no fixed port for them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from modalcore_dev import demo

REPO = Path(__file__).resolve().parents[2]


def test_the_page_is_printed_first_and_last_and_the_engine_says_it_is_port(capsys: pytest.CaptureFixture[str]) -> None:
    page, engine = "http://127.0.0.1:41234", "http://127.0.0.1:8701"
    demo.print_page_first(page, engine, 8701)
    solana: Any = SimpleNamespace(caip2="solana:dev", rpc_url="http://127.0.0.1:9000")
    demo.print_addresses(engine, page, 8701, {31337: "http://127.0.0.1:1", 31338: "http://127.0.0.1:2"}, 2525, None,
                         cast(Any, solana), "ws://127.0.0.1:3", "http://127.0.0.1:4/", "http://127.0.0.1:5",
                         {31337: "http://127.0.0.1:6"})
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert lines[0].strip().startswith(f"Modalcore demo page: {page}/")
    assert lines[-1].strip().startswith(f"Modalcore demo page: {page}/")
    assert "open this" in lines[-1]
    engine_lines = [line for line in lines if line.strip().startswith("engine (PORT=8701):")]
    assert len(engine_lines) == 2 and all(engine in line for line in engine_lines)
    farcaster = next(i for i, line in enumerate(lines) if line.startswith("demo Farcaster client"))
    bundler = next(i for i, line in enumerate(lines) if line.startswith("bundler eip155:31337"))
    assert 0 < farcaster < len(lines) - 3 and 0 < bundler < len(lines) - 3
    assert any(line.startswith(f"email codes: {engine}/dev/mail ") for line in lines)


def test_the_readme_names_no_fixed_port_for_the_mail_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "127.0.0.1:8700/dev/mail" not in readme
    first = readme.splitlines()[:6]
    assert any(line.startswith("make run") for line in first) and any(line.startswith("make test") for line in first)
