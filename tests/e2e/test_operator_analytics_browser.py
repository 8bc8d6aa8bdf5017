"""`/operator/analytics` opened in Chromium (issue 31): the sign-in form, the operator token
typed in, then the page with its chart of events per day; the cookie it set is HttpOnly (page
script cannot read it) and SameSite=Strict."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from modalcore.server.operator_login import SESSION_COOKIE
from modalcore_testing import make_test_config, start_server

from ..analytics.test_operator_login import TOKEN, filled_store
from .conftest import TIMEOUT_MS

pytestmark = [pytest.mark.e2e]


def test_rule_the_analytics_page_opens_in_a_browser_after_signing_in(browser: Any) -> None:
    with ThreadPoolExecutor(1) as pool:  # sync Playwright holds an event loop in this thread
        store = pool.submit(filled_store).result()
    with start_server(make_test_config(operator_token=TOKEN), store=store) as server:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(server.http_url + "/operator/analytics")
            assert page.locator("h1").inner_text() == "Operator sign-in"
            page.get_by_label("Operator token").fill("not-it")
            page.get_by_role("button", name="Sign in").click()
            page.get_by_role("alert").wait_for()
            page.get_by_label("Operator token").fill(TOKEN)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url("**/operator/analytics")
            assert page.locator("h1").inner_text() == "Events per day"
            chart = page.get_by_role("img", name="Events per day, 2024-01-01 to 2024-01-04")
            assert chart.is_visible() and chart.locator("rect").count() == 4
            assert "CONNECT_SUCCESS" in page.locator("table").inner_text()
            assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it
            (cookie,) = [c for c in context.cookies() if c["name"] == SESSION_COOKIE]
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            page.reload()
            assert page.locator("h1").inner_text() == "Events per day"
        finally:
            context.close()
