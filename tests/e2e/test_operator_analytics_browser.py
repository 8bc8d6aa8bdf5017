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


def test_rule_the_operator_filters_by_days_and_project_and_signs_out(browser: Any) -> None:
    """Issue 46: the page's From/To/Project form narrows the chart and table; Sign out ends the
    browser's session (the page asks for the token again)."""
    from ..analytics.test_analytics_filters import two_projects

    with ThreadPoolExecutor(1) as pool:
        store = pool.submit(two_projects).result()
    config = make_test_config(operator_token=TOKEN, projects={
        "test": {"name": "Test dApp", "origins": ["https://app.example.com"]},
        "other": {"name": "Other dApp", "origins": ["https://other.example.com"]}})
    with start_server(config, store=store) as server:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(server.http_url + "/operator/analytics")
            page.get_by_label("Operator token").fill(TOKEN)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url("**/operator/analytics")
            assert "CONNECT_SUCCESS" in page.locator("table").inner_text()
            page.get_by_label("From", exact=True).fill("2024-01-02")
            page.get_by_label("To", exact=True).fill("2024-01-04")
            page.get_by_label("Project").select_option(label="Test dApp")
            page.get_by_role("button", name="Show").click()
            page.wait_for_url("**/operator/analytics?from=2024-01-02&to=2024-01-04&project=test")
            table = page.locator("table").inner_text()
            assert "MODAL_OPEN" in table and "CONNECT_SUCCESS" not in table
            assert "2024-01-01" not in table and "2024-01-04" in table
            assert page.get_by_label("Project").input_value() == "test"  # the form keeps the choice
            chart = page.get_by_role("img", name="Events per day, 2024-01-02 to 2024-01-04")
            assert chart.is_visible()
            page.get_by_role("button", name="Sign out").click()
            page.wait_for_url("**/operator/login")
            assert page.locator("h1").inner_text() == "Operator sign-in"
            assert [c for c in context.cookies() if c["name"] == SESSION_COOKIE] == []
            page.goto(server.http_url + "/operator/analytics")
            assert page.locator("h1").inner_text() == "Operator sign-in"
        finally:
            context.close()
