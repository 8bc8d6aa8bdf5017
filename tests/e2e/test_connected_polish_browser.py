"""Acceptance pass over the connected product in Chromium: one test per defect a browser shows
(the swap review's buttons sticking out of the card's content, a ring hugging the digits of an
invalid amount)."""

from __future__ import annotations

from typing import Any

import pytest

from .checks import clipped, outside
from .conftest import Demo, connect_dev_wallet

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

ROOT = "document.querySelector('modalcore-modal').shadowRoot"

# Buttons of the view whose box leaves the view's content box (inside its 16 px padding).
BEYOND_CONTENT = """() => {
  const views = %s.querySelectorAll('.wm-card .wm-view');
  const body = views[views.length - 1];
  const s = getComputedStyle(body);
  const b = body.getBoundingClientRect();
  const left = b.left + parseFloat(s.paddingLeft), right = b.right - parseFloat(s.paddingRight);
  const out = [];
  for (const el of body.querySelectorAll('.wm-btn')) {
    const r = el.getBoundingClientRect();
    if (r.width && (r.left < left - 1 || r.right > right + 1))
      out.push(`${(el.textContent || el.getAttribute('aria-label') || '').trim()} [${r.left}, ${r.right}] beyond [${left}, ${right}]`);
  }
  return out;
}""" % ROOT


def _swap_review_with_approval(demo: Demo) -> Any:
    """Account → Swap 25 TUSD for DEMO (TUSD needs an allowance first) → the review."""
    from playwright.sync_api import expect

    account = connect_dev_wallet(demo)
    account.get_by_role("button", name="Swap", exact=True).click()
    form = demo.wait_view("Swap")
    form.get_by_role("button", name="Pay with ETH, change token").click()
    form.get_by_role("button", name="Test USD").first.click()
    form.get_by_role("button", name="Select a token to receive").click()
    form.get_by_role("button").filter(has_text="Demo Token").first.click()
    form.get_by_role("textbox", name="Amount to swap").fill("25")
    expect(form.get_by_role("button", name="Review swap")).to_be_enabled()
    form.get_by_role("button", name="Review swap").click()
    return demo.wait_view("SwapPreview")


def test_swap_review_buttons_stay_inside_the_card_content_when_approval_is_needed(demo: Demo) -> None:
    """Defect: 'Cancel' beside 'Approve TUSD and swap' took 348 px of a 328 px content box, both
    buttons sticking 10 px out on each side (to the card's edge) on desktop."""
    from playwright.sync_api import expect

    review = _swap_review_with_approval(demo)
    expect(review.get_by_role("button", name="Approve TUSD and swap")).to_be_visible()
    assert demo.eval(BEYOND_CONTENT) == []
    assert clipped(demo) == [] and outside(demo) == []


def test_an_invalid_amount_is_red_digits_without_a_ring_around_them(demo: Demo) -> None:
    """Defect: a focused amount above the balance drew a red ring tight around the digits (the
    big amount field has no box, so the ring touched the first digit)."""
    from playwright.sync_api import expect

    account = connect_dev_wallet(demo)
    account.get_by_role("button", name="Send", exact=True).click()
    form = demo.wait_view("WalletSend")
    form.get_by_role("button", name="ETH").first.wait_for()  # Send opens on the native token
    amount = form.get_by_role("textbox", name="Amount")
    amount.fill("100000")
    expect(form.get_by_text("Insufficient funds")).to_be_visible()
    expect(amount).to_be_focused()
    expect(amount).to_have_attribute("aria-invalid", "true")
    field = demo.eval(f"() => getComputedStyle({ROOT}.querySelector('.wm-card .wm-input[data-kind=amount]')).boxShadow")
    assert field == "none"


def test_buy_choices_are_one_height_and_say_which_is_chosen(demo: Demo) -> None:
    """Defect: Buy's rows of choices were 60 px (3 currencies), 48 px (2 payment currencies) and
    60 px (4 presets) tall, the chosen one told apart by colour only."""
    from playwright.sync_api import expect

    account = connect_dev_wallet(demo)
    account.get_by_role("button", name="Buy", exact=True).click()
    buy = demo.wait_view("OnRamp")
    expect(buy.get_by_role("button", name="Pay in EUR")).to_be_visible()
    expect(buy.get_by_role("button", name="Pay in USD")).to_have_attribute("aria-pressed", "true")
    expect(buy.get_by_role("button", name="Pay in EUR")).to_have_attribute("aria-pressed", "false")
    heights = demo.eval(f"""() => [...{ROOT}.querySelectorAll('.wm-card .wm-btn[aria-pressed]')]
        .map((b) => Math.round(b.getBoundingClientRect().height))""")
    assert len(heights) == 9 and len(set(heights)) == 1, heights
    assert clipped(demo) == [] and outside(demo) == []


def test_a_wrapped_detail_row_keeps_its_label_at_the_start_and_its_value_at_the_end(demo: Demo) -> None:
    """Defect: with Max of ETH swapped for TUSD, 'Minimum received (1% slippage)' and
    '98,500.970927 TUSD' wrapped onto two lines each, both centred in the middle of the card."""
    from playwright.sync_api import expect

    account = connect_dev_wallet(demo)
    account.get_by_role("button", name="Swap", exact=True).click()
    form = demo.wait_view("Swap")
    form.get_by_role("button", name="Select a token to receive").click()
    form.get_by_role("button").filter(has_text="Test USD").first.click()
    form.get_by_role("button", name="Max, swap the whole balance").click()
    expect(form.get_by_role("button", name="Review swap")).to_be_enabled()
    aligns = demo.eval(f"""() => {{
        const row = [...{ROOT}.querySelectorAll('.wm-card .wm-stack[data-dir=row]')]
            .find((r) => r.textContent.startsWith('Minimum received'));
        return [...row.children].map((c) => getComputedStyle(c).textAlign); }}""")
    assert aligns == ["start", "end"]
