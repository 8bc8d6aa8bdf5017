"""The analytics page's date range, project filter and sign-out (issue 46 item 7): `from`/`to`
(inclusive UTC days) and `project` narrow the page and the JSON alike, a filter that is not one
answers 400 and shows nothing, and Sign out clears the cookie (same origin only)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from modalcore.server.operator_login import SESSION_COOKIE
from modalcore.store.base import StoredEvent
from modalcore.store.memory import MemoryStore
from modalcore_testing import RunningServer, make_test_config, start_server

from .test_operator_login import DAY_MS, JAN_1, TOKEN, _form

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def two_projects() -> MemoryStore:
    """`test`: MODAL_OPEN on Jan 1, 2 and 4; `other`: CONNECT_SUCCESS on Jan 2."""
    store = MemoryStore()

    async def fill() -> None:
        for i, (project, day, event) in enumerate([("test", 0, "MODAL_OPEN"), ("test", 1, "MODAL_OPEN"),
                                                   ("test", 3, "MODAL_OPEN"), ("other", 1, "CONNECT_SUCCESS")]):
            await store.analytics.add(StoredEvent(f"e{i}", project, "s1", event, JAN_1 + day * DAY_MS, b"{}"))

    asyncio.run(fill())
    return store


@pytest.fixture()
def server() -> Iterator[RunningServer]:
    config = make_test_config(operator_token=TOKEN, projects={
        "test": {"name": "Test dApp", "origins": ["https://app.example.com"]},
        "quiet": {"name": "Quiet dApp", "origins": ["https://quiet.example.com"]}})
    with start_server(config, store=two_projects()) as running:
        yield running


def _counts(server: RunningServer, query: str) -> list[tuple[str, str, str, int]]:
    answer = httpx.get(f"{server.http_url}/v1/analytics/counts?{query}", headers=AUTH, timeout=5)
    assert answer.status_code == 200, answer.text
    return [(c["project"], c["day"], c["event"], c["count"]) for c in answer.json()["counts"]]


def test_rule_a_date_range_and_a_project_narrow_the_counts(server: RunningServer) -> None:
    assert len(_counts(server, "")) == 4
    assert _counts(server, "from=2024-01-02&to=2024-01-02") == [
        ("other", "2024-01-02", "CONNECT_SUCCESS", 1), ("test", "2024-01-02", "MODAL_OPEN", 1)]
    assert _counts(server, "project=test&from=2024-01-02") == [
        ("test", "2024-01-02", "MODAL_OPEN", 1), ("test", "2024-01-04", "MODAL_OPEN", 1)]
    assert _counts(server, "project=quiet") == []
    page = httpx.get(f"{server.http_url}/operator/analytics?project=other", headers=AUTH, timeout=5)
    assert page.status_code == 200
    assert "<td>other</td><td>CONNECT_SUCCESS</td>" in page.text and "<td>test</td>" not in page.text
    assert "<option value='other' selected>other</option>" in page.text
    assert "<option value='quiet'>Quiet dApp</option>" in page.text  # every configured project
    quiet = httpx.get(f"{server.http_url}/operator/analytics?project=quiet", headers=AUTH, timeout=5)
    assert "<p>No events match.</p>" in quiet.text


@pytest.mark.parametrize(("query", "said"), [
    ("from=yesterday", "from must be a day, YYYY-MM-DD"),
    ("to=2024-02-30", "to must be a day, YYYY-MM-DD"),
    ("from=2024-01-03&to=2024-01-01", "from must not be after to"),
    ("project=" + "p" * 200, "project is too long"),
])
def test_rule_a_filter_that_is_not_one_answers_400_and_shows_nothing(
        server: RunningServer, query: str, said: str) -> None:
    answer = httpx.get(f"{server.http_url}/v1/analytics/counts?{query}", headers=AUTH, timeout=5)
    assert answer.status_code == 400 and answer.json() == {"error": "bad_filter", "message": said}
    page = httpx.get(f"{server.http_url}/operator/analytics?{query}", headers=AUTH, timeout=5)
    assert page.status_code == 400 and said in page.text and "<table" not in page.text


def test_rule_sign_out_clears_the_cookie_and_only_from_this_origin(server: RunningServer) -> None:
    base = server.http_url
    with httpx.Client() as browser:
        csrf = _form(browser, base)
        signed = browser.post(base + "/operator/login", headers={"Origin": base},
                              data={"token": TOKEN, "csrf": csrf, "next": "/operator/analytics"})
        assert signed.status_code == 303
        assert browser.get(base + "/operator/analytics").status_code == 200
        refused = browser.post(base + "/operator/logout", headers={"Origin": "https://evil.example"})
        assert refused.status_code == 403 and SESSION_COOKIE not in refused.headers.get("set-cookie", "")
        done = browser.post(base + "/operator/logout", headers={"Origin": base, "Sec-Fetch-Site": "same-origin"})
        assert done.status_code == 303 and done.headers["location"] == "/operator/login"
        cleared = next(v for k, v in done.headers.multi_items() if k == "set-cookie")
        assert cleared.startswith(f'{SESSION_COOKIE}=""') and "Max-Age=0" in cleared
        assert browser.get(base + "/operator/analytics").status_code == 401  # the form again
