"""When the engine cannot be reached (the walk at 1280×800 and 390×844): with the engine's port
closed, pressing Connect Wallet showed nothing, for ever. Now the modal says the wallet service
cannot be reached within 2 s (the button carries a warning mark), the host hears the
renderer-side `error` event, and once the engine is up "Try again" connects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.latency.unreachable_page import serve_unreachable_page

from .conftest import ARTIFACTS, TIMEOUT_MS, engine_config, free_port, serve
from .test_phone_browser import PHONE_UA

pytestmark = pytest.mark.e2e
SHOTS = ARTIFACTS  # artifacts/screenshots; the committed copies are in docs/screenshots

SIZES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "user_agent": PHONE_UA},
}


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_connect_with_the_engine_down_says_so_within_2_s_and_try_again_connects(
    browser: Any, renderer_dist: Path, devchains: ChainsInfo, tmp_path: Path, size: str
) -> None:
    port = free_port()  # nothing listens here yet: every socket is refused
    base = f"http://127.0.0.1:{port}"
    with serve_unreachable_page(renderer_dist / "modal.js", base) as site:
        context = browser.new_context(**SIZES[size])
        context.set_default_timeout(TIMEOUT_MS)
        try:
            unreachable_then_retry(context.new_page(), site, devchains, tmp_path, base, port, size)
        finally:
            context.close()


def unreachable_then_retry(page: Any, site: str, devchains: ChainsInfo, tmp_path: Path, base: str, port: int,
                           size: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError, expect

    page.goto(site + "/")
    button = page.get_by_role("button", name="Connect Wallet")
    expect(button).to_be_visible()
    button.click()
    dialog = page.get_by_role("dialog", name="Wallet service unavailable")
    # the issue's bound, within 2 s of the press (measured by `make bench`'s latency section)
    expect(dialog).to_be_visible(timeout=2000)
    expect(dialog).to_contain_text("The wallet service cannot be reached")
    expect(dialog.get_by_role("button", name="Try again")).to_be_visible()
    expect(page.locator("modalcore-button button")).to_have_attribute("data-state", "unreachable")
    assert page.evaluate("window.hostErrors")[0] == {
        "code": "unreachable", "message": "The wallet service cannot be reached"}
    assert page.evaluate("window.hostConnection")[-1] == "unreachable"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"issue39-unreachable-after-{size}.png"))

    # the engine comes up on that port: Try again joins and the engine's Connect view shows
    config = engine_config(devchains, tmp_path).model_copy(update={"public_url": base})
    with serve(config, port):
        try:
            dialog.get_by_role("button", name="Try again").click(timeout=5000)
        except PlaywrightTimeoutError:
            # the renderer's own background retry reached the engine first: the dialog is gone
            # (the button was detached under the click); what follows checks the same outcome
            pass
        expect(page.locator('.wm-card[data-view="Connect"]')).to_be_visible()
        expect(page.get_by_role("dialog", name="Wallet service unavailable")).to_have_count(0)
        assert page.evaluate("window.hostConnection")[-1] == "connected"
        expect(page.locator("modalcore-button button")).not_to_have_attribute("data-state", "unreachable")
