"""A browser's way to `/operator/analytics` (issue 31): the page without a token is the sign-in
form; the form's POST takes the operator token (constant-time compare) and sets an HttpOnly,
SameSite=Strict cookie holding no token; the POST refuses a missing CSRF value and another origin;
the page draws its counts per day as inline SVG."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import httpx
import pytest

from modalcore.analytics.chart import day_chart
from modalcore.server.operator_login import SESSION_COOKIE
from modalcore.store.base import StoredEvent
from modalcore.store.memory import MemoryStore
from modalcore_testing import RunningServer, make_test_config, start_server

TOKEN = "op-secret-for-tests-32-bytes-or-longer"
DAY_MS = 86_400_000
JAN_1 = 1_704_067_200_000  # 2024-01-01T00:00:00Z


def filled_store() -> MemoryStore:
    store = MemoryStore()

    async def fill() -> None:
        for i, (day, event) in enumerate([(0, "MODAL_OPEN"), (0, "MODAL_OPEN"), (0, "CONNECT_SUCCESS"),
                                          (1, "MODAL_OPEN"), (3, "CONNECT_SUCCESS")]):
            await store.analytics.add(StoredEvent(f"e{i}", "test", "s1", event, JAN_1 + day * DAY_MS, b"{}"))

    asyncio.run(fill())
    return store


@pytest.fixture()
def server() -> Iterator[RunningServer]:
    with start_server(make_test_config(operator_token=TOKEN), store=filled_store()) as running:
        yield running


def _form(client: httpx.Client, base: str) -> str:
    page = client.get(base + "/operator/analytics")
    assert page.status_code == 401 and "<form method='post' action='/operator/login'>" in page.text
    match = re.search(r"name='csrf' value='([^']+)'", page.text)
    assert match is not None
    return match.group(1)


def test_rule_the_form_signs_a_browser_in_with_an_httponly_strict_cookie(server: RunningServer) -> None:
    base = server.http_url
    with httpx.Client() as client:
        csrf = _form(client, base)
        done = client.post(base + "/operator/login", headers={"Origin": base},
                           data={"token": TOKEN, "csrf": csrf, "next": "/operator/analytics"})
        assert done.status_code == 303 and done.headers["location"] == "/operator/analytics"
        cookie = next(v for k, v in done.headers.multi_items()
                      if k == "set-cookie" and v.startswith(SESSION_COOKIE + "="))
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert TOKEN not in cookie
        page = client.get(base + "/operator/analytics")
        assert page.status_code == 200 and "<svg" in page.text and "<td>CONNECT_SUCCESS</td>" in page.text
        assert client.get(base + "/v1/analytics/counts").status_code == 200  # reads take the cookie
    assert httpx.get(base + "/operator/analytics").status_code == 401  # a browser without it
    forged = {SESSION_COOKIE: "99999999999.00"}
    assert httpx.get(base + "/operator/analytics", cookies=forged).status_code == 401


def test_rule_a_wrong_token_a_missing_csrf_value_or_another_origin_signs_nobody_in(
        server: RunningServer) -> None:
    base = server.http_url
    with httpx.Client() as client:
        csrf = _form(client, base)
        wrong = client.post(base + "/operator/login", data={"token": "nope", "csrf": csrf})
        assert wrong.status_code == 401 and "not the operator token" in wrong.text
        assert SESSION_COOKIE not in client.cookies
        csrf = _form(client, base)
        assert client.post(base + "/operator/login", data={"token": TOKEN}).status_code == 403
        assert client.post(base + "/operator/login", data={"token": TOKEN, "csrf": "guessed"}).status_code == 403
        other = client.post(base + "/operator/login", headers={"Origin": "https://evil.example"},
                            data={"token": TOKEN, "csrf": csrf})
        assert other.status_code == 403
        cross = client.post(base + "/operator/login", headers={"Sec-Fetch-Site": "cross-site"},
                            data={"token": TOKEN, "csrf": csrf})
        assert cross.status_code == 403
        assert SESSION_COOKIE not in client.cookies
    # a form another site posts has no CSRF cookie to match at all
    assert httpx.post(base + "/operator/login", data={"token": TOKEN, "csrf": "x"}).status_code == 403


def test_rule_the_login_goes_nowhere_but_operator_pages(server: RunningServer) -> None:
    base = server.http_url
    with httpx.Client() as client:
        csrf = _form(client, base)
        done = client.post(base + "/operator/login",
                           data={"token": TOKEN, "csrf": csrf, "next": "//evil.example/x"})
        assert done.headers["location"] == "/operator/analytics"


def test_rule_no_operator_token_no_login() -> None:
    with start_server(make_test_config()) as running:
        assert httpx.get(running.http_url + "/operator/login").status_code == 404
        assert httpx.post(running.http_url + "/operator/login", data={"token": ""}).status_code == 404


def test_rule_the_chart_stacks_each_days_counts() -> None:
    rows = [("p", "2024-01-01", "MODAL_OPEN", 2), ("p", "2024-01-01", "CONNECT_SUCCESS", 1),
            ("p", "2024-01-02", "MODAL_OPEN", 3), ("q", "2024-01-02", "<b>", 1)]
    svg = day_chart(rows)
    assert svg.count("<rect") == 4 and "2024-01-02 MODAL_OPEN: 3" in svg
    assert "<b>" not in svg and "&lt;b&gt;" in svg  # event names are escaped
    assert day_chart([]) == ""
    gap = day_chart([("p", "2024-01-30", "A", 1), ("p", "2024-02-02", "A", 1)])
    assert [d in gap for d in (">01-30<", ">01-31<", ">02-01<", ">02-02<")] == [True] * 4  # empty days too
