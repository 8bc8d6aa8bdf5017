"""Connect (desktop 1280×800, phone 390×844 with a mobile user agent) and Account of a running
demo page as PNGs, for the README's before/after screenshots (issue 28):

    python docs/screenshots/shoot.py http://127.0.0.1:PAGE_PORT/ issue28-after docs/screenshots

(the page of `make run` or `python -m modalcore_dev demo`; PYTHONPATH at the checkout). The Dev Wallet
is connected through the modal, then Account is opened."""

from __future__ import annotations

import sys

from modalcore_testing.chromium import LOOPBACK_ONLY, sync_chromium

url, prefix, out = sys.argv[1], sys.argv[2], sys.argv[3]
PHONE_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/120.0.0.0 Mobile Safari/537.36")
ROOT = "document.querySelector('modalcore-modal').shadowRoot"

def settle(page):
    page.wait_for_timeout(600)
    page.evaluate("""async () => { const r = %s; for (const img of r.querySelectorAll('img')) { if (!img.complete) await new Promise(res => { img.onload = img.onerror = res; setTimeout(res, 3000); }); } }""" % ROOT)
    page.wait_for_timeout(900)

def shoot(page, name, phone):
    path = f"{out}/{prefix}-{name}.png"
    if phone:
        page.screenshot(path=path)
    else:  # the card and a margin around it
        box = page.locator(".wm-card").bounding_box()
        m = 24
        page.screenshot(path=path, clip={"x": box["x"] - m, "y": box["y"] - m, "width": box["width"] + 2 * m, "height": box["height"] + 2 * m})
    print(path)

with sync_chromium(LOOPBACK_ONLY) as browser:
    for size, phone in (((1280, 800), False), ((390, 844), True)):
        phone_kw = dict(is_mobile=True, has_touch=True, user_agent=PHONE_UA) if phone else {}
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, device_scale_factor=1, **phone_kw)
        ctx.set_default_timeout(15000)
        page = ctx.new_page()
        page.goto(url)
        page.wait_for_function("window.demoModal !== undefined && window.devWallet !== undefined")
        page.locator(".modalcore-connect-button").click()
        page.locator(".wm-card[data-view]").first.wait_for(state="visible")
        settle(page)
        kind = "phone" if phone else "desktop"
        print(kind, "first view:", page.locator(".wm-card").get_attribute("data-view"))
        shoot(page, f"connect-{kind}", phone)
        # connect the Dev Wallet through the host API (the same on both versions), then Account
        page.keyboard.press("Escape")
        page.wait_for_timeout(500)
        page.evaluate("window.devWallet.setPromptDelay && window.devWallet.setPromptDelay(0)")  # no prompt wait
        page.locator(".modalcore-connect-button").click()
        card = page.locator(".wm-card[data-view]").first
        card.wait_for(state="visible")
        dev = page.locator('.wm-card [data-nav]:has(img[alt="Dev Wallet"]), .wm-card button:has-text("Dev Wallet")').first
        if not dev.count():
            # the phone opened on All Wallets at 2610af1: search the Dev Wallet there
            page.locator(".wm-card").get_by_role("searchbox").fill("Dev")
            page.wait_for_timeout(800)
        dev.click()
        page.wait_for_timeout(300)
        page.wait_for_function("(() => { try { return JSON.parse(document.getElementById('account').textContent).isConnected === true; } catch (e) { return false; } })()", timeout=20000)
        page.wait_for_timeout(500)
        if not page.locator('.wm-card[data-view="Account"]').is_visible():
            page.locator(".modalcore-connect-button").click()
        acc = page.locator('.wm-card[data-view="Account"]')
        acc.wait_for(state="visible")
        acc.locator(".wm-token").first.wait_for()
        settle(page)
        shoot(page, f"account-{kind}", phone)
        ctx.close()
