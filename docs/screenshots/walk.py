"""Before/after screenshots of the walk's fixes (docs/features/walk-fixes.md) on a running demo
page, each cropped to the modal's card (or its frame):

    python docs/screenshots/walk.py http://127.0.0.1:PAGE_PORT/ before docs/screenshots [SHOT ...]

(the page of `make run` or `python -m modalcore_dev demo`; PYTHONPATH at the checkout). Every
shot is taken through the host API and clicks that exist on both versions, so the same script
takes the "before" (an older checkout's demo) and the "after". Shots: buy, send, networks-note,
name, farcaster-desktop, farcaster-phone, social-chip."""

from __future__ import annotations

import sys
from typing import Any

from modalcore_testing.chromium import LOOPBACK_ONLY, sync_chromium

URL, WHEN, OUT = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
ONLY = set(sys.argv[4:])
PHONE_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/120.0.0.0 Mobile Safari/537.36")
CONNECTED = ("(() => { try { return JSON.parse(document.getElementById('account').textContent)"
             ".isConnected === true; } catch (e) { return false; } })()")


def settle(page: Any) -> None:
    page.wait_for_timeout(700)
    page.evaluate("""async () => { const r = document.querySelector('modalcore-modal').shadowRoot;
        for (const img of r.querySelectorAll('img')) { if (!img.complete) await new Promise(res => {
        img.onload = img.onerror = res; setTimeout(res, 3000); }); } }""")
    page.wait_for_timeout(700)


def card_shot(page: Any, name: str, margin: int = 16) -> None:
    """The visible card and a margin around it, as issue39-NAME-WHEN.png."""
    settle(page)
    box = page.locator(".wm-card[data-view]:visible").first.bounding_box()
    clip = {"x": max(0, box["x"] - margin), "y": max(0, box["y"] - margin),
            "width": box["width"] + 2 * margin, "height": box["height"] + 2 * margin}
    vp = page.viewport_size
    clip["width"] = min(clip["width"], vp["width"] - clip["x"])
    clip["height"] = min(clip["height"], vp["height"] - clip["y"])
    path = f"{OUT}/issue39-{name}-{WHEN}.png"
    page.screenshot(path=path, clip=clip)
    print(path, flush=True)


def view(page: Any, name: str) -> Any:
    card = page.locator(f'.wm-card[data-view="{name}"]')
    card.wait_for(state="visible")
    return card


def new_page(browser: Any, phone: bool = False) -> tuple[Any, Any]:
    kw: dict[str, Any] = dict(is_mobile=True, has_touch=True, user_agent=PHONE_UA) if phone else {}
    size = {"width": 390, "height": 844} if phone else {"width": 1280, "height": 800}
    ctx = browser.new_context(viewport=size, device_scale_factor=1, **kw)
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    page.goto(URL + "/")
    page.wait_for_function("window.demoModal !== undefined && window.devWallet !== undefined")
    return ctx, page


def open_modal(page: Any) -> None:
    page.locator(".modalcore-connect-button").click()
    page.locator(".wm-card[data-view]").first.wait_for(state="visible")


def connect_dev(page: Any) -> Any:
    page.evaluate("window.devWallet.setPromptDelay && window.devWallet.setPromptDelay(0)")
    open_modal(page)
    page.locator('.wm-card button:has-text("Dev Wallet")').first.click()
    page.wait_for_function(CONNECTED, timeout=30000)
    page.wait_for_timeout(600)
    if not page.locator('.wm-card[data-view="Account"]').is_visible():
        open_modal(page)
    account = view(page, "Account")
    account.locator(".wm-token").first.wait_for()
    return account


def shoot_buy(browser: Any) -> None:
    ctx, page = new_page(browser)
    account = connect_dev(page)
    account.get_by_role("button", name="Buy", exact=True).click()
    buy = view(page, "OnRamp")
    buy.get_by_role("button", name="Coinbase").click()
    buy.get_by_role("button", name="100 USD").click()
    buy.get_by_text(" ETH", exact=False).last.wait_for()
    page.wait_for_timeout(1500)
    card_shot(page, "buy")
    ctx.close()


def shoot_send(browser: Any) -> None:
    ctx, page = new_page(browser)
    account = connect_dev(page)
    account.get_by_role("button", name="Send", exact=True).click()
    view(page, "WalletSend")
    page.wait_for_timeout(1500)
    card_shot(page, "send")
    ctx.close()


def shoot_networks_note(browser: Any) -> None:
    ctx, page = new_page(browser)
    page.evaluate("window.demoModal.open({view: 'Networks'})")
    view(page, "Networks")
    card_shot(page, "networks-note")
    ctx.close()


def shoot_name(browser: Any) -> None:
    ctx, page = new_page(browser)
    page.evaluate("window.devWallet.setAccountIndex(5)")  # an account without a name
    page.evaluate("""() => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', {detail: Object.freeze({
        info: Object.freeze({uuid: 'ID_AUTH', name: 'Email Wallet', icon: 'data:image/svg+xml,%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22/%3E', rdns: ''}),
        provider: window.devWallet.provider})}))""")
    open_modal(page)
    view(page, "Connect").get_by_role("button", name="Email Wallet").click()
    page.wait_for_function(CONNECTED, timeout=30000)
    page.wait_for_timeout(600)
    if not page.locator('.wm-card[data-view="Account"]').is_visible():
        open_modal(page)
    view(page, "Account").get_by_role("button", name="Choose a name").click()
    card = view(page, "RegisterAccountName")
    card.get_by_role("textbox", name="Account name").fill("satoshi-walk")
    card.get_by_text("satoshi-walk.reown.id is available").wait_for()
    page.wait_for_timeout(1200)
    card_shot(page, "name")
    ctx.close()


def shoot_farcaster(browser: Any, phone: bool) -> None:
    ctx, page = new_page(browser, phone)
    open_modal(page)
    connect = page.locator('.wm-card[data-view="Connect"]')
    connect.get_by_role("button", name="Continue with Farcaster").click()
    frame = page.frame_locator("iframe.wm-frame")
    if phone:
        frame.locator("#farcaster-open").wait_for()
    else:
        frame.locator("#farcaster-qr svg").wait_for()
    page.wait_for_timeout(1200)
    card_shot(page, "farcaster-phone" if phone else "farcaster-desktop")
    ctx.close()


def shoot_social_chip(browser: Any) -> None:
    """Sign in with Google at the local OpenID provider (one press on Connect opens its window
    after the fix; before, the frame's own button is the second press), then Account's chip."""
    ctx, page = new_page(browser)
    open_modal(page)
    popups: list[Any] = []
    ctx.on("page", lambda p: popups.append(p))
    view(page, "Connect").get_by_role("button", name="Continue with Google").click()
    page.wait_for_timeout(2500)
    if not popups:
        page.frame_locator("iframe.wm-frame").get_by_role("button", name="Continue with Google").click()
        page.wait_for_timeout(2500)
    popup = popups[-1]
    popup.locator('input[name="login"]').wait_for()
    popup.locator('input[name="login"]').fill("zoe")
    popup.locator('input[name="password"]').fill("any")
    popup.locator('button[type="submit"]').click()
    popup.locator('button[type="submit"]').first.click()  # the provider's consent page
    page.wait_for_function(CONNECTED, timeout=60000)
    page.wait_for_timeout(800)
    if not page.locator('.wm-card[data-view="Account"]').is_visible():
        open_modal(page)
    view(page, "Account").get_by_text("zoe").first.wait_for()
    page.wait_for_timeout(1500)
    card_shot(page, "social-chip")
    ctx.close()


SHOTS = {
    "buy": shoot_buy,
    "send": shoot_send,
    "networks-note": shoot_networks_note,
    "name": shoot_name,
    "farcaster-desktop": lambda b: shoot_farcaster(b, False),
    "farcaster-phone": lambda b: shoot_farcaster(b, True),
    "social-chip": shoot_social_chip,
}

with sync_chromium(LOOPBACK_ONLY) as chromium:
    for key, shoot in SHOTS.items():
        if ONLY and key not in ONLY:
            continue
        try:
            shoot(chromium)
        except Exception as error:  # one failed shot does not stop the others
            print(f"{key}: failed: {type(error).__name__}: {str(error)[:300]}", flush=True)
