"""The operator's error view (issue 46 item 8): an unexpected error while a session processes
an input is grouped by cause and route with first/last seen, count and the last session (and how
to replay it), at `/operator/errors` behind the operator token, and counted per kind in
`/metrics`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from modalcore.core.msg import Msg
from modalcore.engine.session import Session
from modalcore.runtime.clock import FakeClock
from modalcore.runtime.errorbook import MAX_GROUPS, ErrorBook
from modalcore.runtime.runner import RunnerDeps, SessionRunner
from modalcore.runtime.services import default_services
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import Env
from modalcore.runtime.analytics import MemorySink
from modalcore_testing import make_test_config, start_server

from .test_metrics import parse

TOKEN = "operator-token-for-the-errors-test"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class Boom(Msg):
    pass


def test_rule_the_runner_groups_an_unexpected_error_whatever_the_host_asked() -> None:
    """Recorded even with the host's `analytics: false` (that turns telemetry off, not the
    operator's own view)."""
    book = ErrorBook()

    async def run() -> None:
        clock = FakeClock()
        model = initial_model("demo", "https://app.example.com", parse_options(
            {"networks": ["eip155:31337"], "features": {"analytics": False}}), Env(), [])
        runner = SessionRunner(Session("s-err", model, clock.now_ms()),
                               RunnerDeps(clock=clock, services=default_services(), analytics=MemorySink(),
                                          errors=book))

        def explode(msg: Msg, now: int) -> Any:
            raise KeyError("boom")

        runner.session.deliver = explode  # type: ignore[method-assign]
        runner.start()
        runner.deliver(Boom())
        runner.deliver(Boom())
        await runner.settled()
        await runner.stop()

    asyncio.run(run())
    [group] = book.groups()
    assert (group.kind, group.route, group.count, group.last_session, group.message) == (
        "KeyError", "PROCESS_DELIVER", 2, "s-err", "'boom'")


def test_rule_the_book_is_bounded() -> None:
    book = ErrorBook()
    for i in range(MAX_GROUPS + 5):
        book.record(f"E{i}", "PROCESS_DELIVER", "s", "x" * 10_000, i)
    assert len(book.groups()) == MAX_GROUPS and book.dropped == 5
    assert book.groups()[0].kind == f"E{MAX_GROUPS + 4}" and len(book.groups()[0].message) == 300


def test_rule_the_operator_sees_the_groups_and_metrics_count_them(tmp_path: Path) -> None:
    config = make_test_config(operator_token=TOKEN)
    with start_server(config, record_dir=tmp_path / "rec") as server:
        base = server.http_url
        assert httpx.get(base + "/operator/errors", timeout=5).status_code == 401  # the sign-in form
        empty = httpx.get(base + "/operator/errors", headers=AUTH, timeout=5)
        assert empty.status_code == 200 and "No unexpected errors." in empty.text
        book: ErrorBook = server.app.state.errors
        book.record("KeyError", "PROCESS_DELIVER", "s-one", "'boom' <b>", 1_704_067_200_000)
        book.record("KeyError", "PROCESS_DELIVER", "s-two", "'boom'", 1_704_067_260_000)
        page = httpx.get(base + "/operator/errors", headers=AUTH, timeout=5).text
        assert ("<tr><td>KeyError</td><td>PROCESS_DELIVER</td><td class='n'>2</td>"
                "<td>2024-01-01 00:00:00 UTC</td><td>2024-01-01 00:01:00 UTC</td>") in page
        assert f"python -m modalcore replay {(tmp_path / 'rec').resolve() / 's-two.jsonl'}" in page
        assert "<b>" not in page  # escaped
        _, samples = parse(httpx.get(base + "/metrics", headers=AUTH, timeout=5).text)
        assert samples[("modalcore_errors_total", (("kind", "KeyError"), ("route", "PROCESS_DELIVER")))] == 2
