"""A social sign-in with the host page and the engine on two SITES (host `http://localhost:P`,
engine `http://127.0.0.1:Q`), in a Chromium profile that gives the engine-origin frame no
storage (third-party cookies blocked: this build's new profile, Chrome's Incognito).

Rule (docs/features/embedded-wallet.md "Cross-site hosting"): one press on "Continue with
Google" is enough. The frame has nowhere to keep this browser's key, and a press opens one window
only, so the sign-in's own window (the engine's origin, top level: first-party storage) keeps the
key while the visitor is at the provider, and stays open as the key window once signed in; the
approval frame then signs with it. Before, the frame closed that window and asked for a second
press to open the key window."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.devoidc import DevOidcProvider
from modalcore_testing import RunningServer

from .conftest import host_connected, sign_in_at_provider
from .test_cross_site_browser import (KEY_WINDOW, address_of, blocking_browser, blocking_profile,  # noqa: F401
                                      host_on_another_site, open_host, send_and_approve)
from .test_social_browser import social_engine  # noqa: F401 (fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.chain]


@pytest.fixture(scope="module")
def social_host(social_engine: RunningServer) -> Iterator[str]:  # noqa: F811
    with host_on_another_site(social_engine) as url:
        yield url


def test_cross_site_with_storage_blocked_one_press_on_google_signs_in_and_its_window_keeps_the_key(
        blocking_browser: Any, social_host: str, provider: DevOidcProvider,  # noqa: F811
        social_engine: RunningServer, devchain: ChainsInfo) -> None:  # noqa: F811
    with blocking_profile(blocking_browser) as context:
        opened: list[Any] = []
        context.on("page", lambda new: opened.append(new))
        page = open_host(context, social_host)
        page.click("#open")
        card = page.locator('.wm-card[data-view="Connect"]')
        card.wait_for(state="visible")
        with page.expect_popup() as window:
            card.get_by_role("button", name="Continue with Google").click()
        popup = window.value
        sign_in_at_provider(popup, provider)
        host_connected(page)
        # the sign-in's window stayed, as the key window the frames find by name
        popup.wait_for_url(social_engine.http_url.rstrip("/") + KEY_WINDOW)
        popup.get_by_text("keeps this browser's key for the wallet").wait_for(state="visible")
        address = address_of(page)
        # the approval frame has no storage of its own, and signs with the key that window keeps
        assert "denied" in send_and_approve(page, devchain, address, 10**17)
        # one press, one window: the frames' lookups of the key window by name make blank ones
        # only where no popup blocker refuses them (here), and close them at once
        still_open = [p for p in opened if not p.is_closed()]
        assert still_open == [page, popup], [p.url for p in still_open]
        assert not popup.is_closed()
