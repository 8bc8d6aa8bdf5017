"""Continue on your computer in Chromium (issue 44 item 1, phone to computer): a phone visitor
(390x844, mobile emulation) signed in with the embedded wallet opens "Continue on your
computer"; the phone shows a short address and a code to type. A desktop (1280x800) opens the
address, a wrong code is refused typed, the right one opens the link there; both screens show
the same six digits and the phone (the screen owning the session) confirms; the desktop then
draws the session's modal (a companion connection): the same connected account, and a press on
either screen moves both. A third browser with the leaked link, or the code typed again, is
refused, typed, and nothing changes.

Writes docs/screenshots/issue44-computer-*.png (docs/features/continue-on-phone.md)."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest

from modalcore_dev.devmail import LocalSmtpServer
from modalcore_testing import RunningServer

from .test_embedded_browser import sign_in_by_email
from .test_handoff_browser import SHOTS, _fresh_key, context_of, engine, host_site, smtp

pytestmark = [pytest.mark.e2e, pytest.mark.chain]
__all__ = ["engine", "host_site", "smtp"]  # the handoff test's engine (embedded wallet, Hardhat), host page, mailbox


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"issue44-computer-{name}.png"))


def _type_code(page: Any, code: str) -> None:
    page.locator("#code").fill(code)
    page.get_by_role("button", name="Continue").click()


def test_a_phone_session_continues_on_the_computer_by_a_typed_code_and_a_leaked_link_is_refused(
        browser: Any, host_site: str, smtp: LocalSmtpServer, engine: RunningServer,
        caplog: pytest.LogCaptureFixture) -> None:
    from playwright.sync_api import expect

    caplog.set_level(logging.INFO)
    with context_of(browser, phone=True) as phone_context, context_of(browser) as desktop_context, \
            context_of(browser) as third_context:
        phone = phone_context.new_page()
        phone.goto(host_site)
        phone.wait_for_function("window.hostModal !== undefined")
        sign_in_by_email(phone, smtp, "noa@example.com")
        found = re.search(r'"address":"(0x[0-9a-fA-F]{40})"', phone.locator("#account").inner_text())
        assert found is not None
        events_before = len(phone.evaluate("window.accountEvents"))

        # the phone: Account → "Continue on your computer" → a short address and a code to type
        phone.click("#open")
        account = phone.locator('.wm-card[data-view="Account"]')
        account.wait_for(state="visible")
        expect(account.get_by_role("button", name="Continue on your phone")).to_have_count(0)
        account.get_by_role("button", name="Continue on your computer").click()
        offer = phone.locator('.wm-card[data-view="ContinueOnPhone"]')
        typed = offer.get_by_text(re.compile(r"^[0-9A-Z]{4}-[0-9A-Z]{4}$"))
        expect(typed).to_be_visible()
        expect(offer.get_by_text(f"{engine.http_url.removeprefix('https://')}/continue", exact=True)).to_be_visible()
        assert offer.locator("canvas, svg[data-qr], .wm-qr").count() == 0
        code = typed.inner_text()
        _shot(phone, "phone-offer")

        # the computer opens the short address; a wrong code is refused, typed, nothing changes
        desktop = desktop_context.new_page()
        desktop.goto(f"{engine.http_url}/continue")
        _type_code(desktop, "ZZZZ-ZZZZ")
        expect(desktop.locator("body")).to_have_attribute("data-refusal", "wrong_code")
        expect(desktop.get_by_text("This code is not valid.")).to_be_visible()
        expect(typed).to_have_text(code)  # the phone still offers its code
        _shot(desktop, "desktop-type")

        # the right code opens the link on the computer: both screens show the same six digits
        _type_code(desktop, code.lower())
        digits = desktop.locator("#code")
        expect(digits).to_have_text(re.compile(r"^\d{3} \d{3}$"))
        shown = digits.inner_text()
        expect(offer.get_by_text("Does your computer show this code?")).to_be_visible()
        expect(offer.get_by_text(shown, exact=True)).to_be_visible()
        link = desktop.url
        assert link.startswith(f"{engine.http_url}/continue/"), link
        _shot(desktop, "desktop-code")

        # a third browser: the leaked link, and the code typed again, are refused
        third = third_context.new_page()
        response = third.goto(link)
        assert response is not None and response.status == 410
        expect(third.locator("body")).to_have_attribute("data-refusal", "used_link")
        third.goto(f"{engine.http_url}/continue")
        _type_code(third, code)
        expect(third.locator("body")).to_have_attribute("data-refusal", "used_link")
        expect(third.get_by_text("This code was already used.")).to_be_visible()
        expect(offer.get_by_text(shown, exact=True)).to_be_visible()  # the phone still asks about the computer's code

        # the visitor's Yes on the phone, in the engine's own frame, with the phone's key
        yes = offer.frame_locator("iframe.wm-frame").get_by_role("button", name="Yes, it does")
        yes.scroll_into_view_if_needed()
        expect(yes).to_be_enabled()
        _shot(phone, "phone-confirm")
        yes.click()
        expect(desktop.locator("#state")).to_contain_text("Connected")

        # the computer draws the session's modal: the same connected account
        on_desktop = desktop.locator('#modal .wm-card[data-view="Account"]')
        on_desktop.wait_for(state="visible")
        expect(on_desktop.get_by_text("noa@example.com")).to_be_visible()
        account.wait_for(state="visible")
        expect(phone.locator(".wm-card").get_by_text("Your computer is connected")).to_be_visible()
        expect(account.get_by_role("button", name="Continue on your computer")).to_have_count(0)
        _shot(desktop, "desktop-modal")

        # a press on the computer moves the phone, and back
        on_desktop.get_by_role("button", name="Receive", exact=True).click()
        phone.locator('.wm-card[data-view="WalletReceive"]').wait_for(state="visible")
        desktop.locator('#modal .wm-card[data-view="WalletReceive"]').wait_for(state="visible")
        phone.locator(".wm-card").get_by_role("button", name="Back").click()
        on_desktop.wait_for(state="visible")

        # the third browser cannot join as the companion: its key is not the one the phone confirmed
        forged = {"Content-Type": "application/json", "Origin": engine.http_url, "Sec-Fetch-Site": "same-origin"}
        nonce = third_context.request.post(f"{engine.http_url}/continue/companion", data=json.dumps({
            "link": link.removeprefix(engine.http_url + "/continue/"), "public_key": _fresh_key()}), headers=forged)
        assert (nonce.status, nonce.json()["error"]) == (403, "not_linked")

        # the host page on the phone saw one continuous session: one account, connected all along
        events = phone.evaluate("window.accountEvents")[events_before:]
        assert {json.dumps([e.get("address"), e.get("isConnected")]) for e in events} <= {
            json.dumps([found.group(1), True])}, events
    assert not [r for r in caplog.records if r.exc_info], "a refusal logged a traceback"
    assert any("wrong_code" in r.getMessage() for r in caplog.records)
