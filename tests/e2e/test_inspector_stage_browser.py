"""The inspector's stage in Chromium (issue 31): a hand-written sequence (replay's format, with
comments) opens like a recording, and a card taller than the stage scrolls inside it, so its last
row and the snackbar at its foot can be seen."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modalcore.inspect.recording import inspect_file
from modalcore.inspect.server import create_inspector
from modalcore_testing import serve_app

from .conftest import REPO_ROOT, TIMEOUT_MS
from .test_inspector_browser import stage_bundle  # noqa: F401  (a fixture: dist/inspect.js)

pytestmark = [pytest.mark.e2e]

SEQUENCE = REPO_ROOT / "fixtures" / "sequences" / "connect_and_copy.jsonl"
SHORT_STAGE = ".stage { --stage-height: 420px; }"  # shorter than the Account card with its snackbar

IN_STAGE = """([stage, selector]) => {
  const host = document.getElementById(stage);
  const el = host.shadowRoot.querySelector(selector);
  if (!el) return null;
  const box = host.getBoundingClientRect(), r = el.getBoundingClientRect();
  return r.height > 0 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
}"""


@pytest.fixture
def page(browser: Any, stage_bundle: Path, tmp_path: Path) -> Iterator[Any]:  # noqa: F811
    shutil.copy(SEQUENCE, tmp_path / SEQUENCE.name)
    with serve_app(create_inspector(tmp_path)) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            opened = context.new_page()
            opened.set_default_timeout(TIMEOUT_MS)
            errors: list[str] = []
            opened.on("pageerror", lambda e: errors.append(str(e)))
            opened.goto(server.http_url + "/")
            opened.add_style_tag(content=SHORT_STAGE)
            yield opened
            assert errors == []
        finally:
            context.close()


def _step(page: Any, index: int) -> None:
    page.evaluate("(i) => { location.hash = `connect_and_copy.jsonl/${i}`; }", index)
    page.wait_for_function(
        "(i) => document.getElementById('step-title').textContent.includes(`Step ${i}:`)", arg=index)


def test_rule_a_hand_written_sequence_opens_in_the_inspector(page: Any) -> None:
    row = page.locator('.rec[data-name="connect_and_copy.jsonl"]')
    assert "replays identically" in row.inner_text() and "unreadable" not in row.inner_text()
    row.click()
    page.wait_for_function("document.getElementById('timeline').children.length > 10")
    steps = inspect_file(SEQUENCE).steps
    assert page.locator("#timeline li").count() == len(steps)
    account = next(s.index for s in steps if s.summary()["view"] == "Account" and s.summary()["open"])
    _step(page, account)
    assert "3.000 ETH" in page.evaluate("document.getElementById('stage-recorded').shadowRoot.textContent")


FAILING = "failing_copy.jsonl"


def test_rule_a_failing_sequence_opens_at_its_failing_step_marked_and_numbered_by_line(
        browser: Any, stage_bundle: Path, tmp_path: Path) -> None:  # noqa: F811
    """issue 46 item 5: opened at the step its failed expectation checked, that step marked with
    the failure, steps numbered by sequence line, long kinds whole, arrow keys and Home/End step."""
    wrong = SEQUENCE.read_text().replace('{"expect": {"text": "Address copied"}}',
                                         '{"expect": {"text": "Address pasted"}}')
    (tmp_path / FAILING).write_text(wrong)
    inspection = inspect_file(tmp_path / FAILING)
    failed_at = inspection.failed_at
    assert failed_at is not None and failed_at > 0 and inspection.failed.startswith("line 9:")
    with serve_app(create_inspector(tmp_path)) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{server.http_url}/#{FAILING}")
            title = "(i) => document.getElementById('step-title').textContent.includes(`Step ${i}:`)"
            page.wait_for_function(title, arg=failed_at)  # not step 0
            failing = page.locator("#timeline li.fails")
            assert failing.count() == 1
            assert failing.get_attribute("data-step-index") == str(failed_at)
            assert "fails at line 9: expected 'Address pasted'" in failing.inner_text()
            assert page.locator("#step-failure").is_visible()
            assert page.locator("#step-title").inner_text().startswith("Line 8 · Step")
            numbers = page.locator("#timeline li .num").all_inner_texts()
            assert numbers == [f"l. {s.line}" if s.line else "join" for s in inspection.steps]
            kinds = page.locator("#timeline li .kind")
            long_kind = next(i for i, s in enumerate(inspection.steps) if s.kind == "effect_result")
            shown = kinds.nth(long_kind)
            assert shown.inner_text() == "effect_result" and shown.get_attribute("title") == "effect_result"
            assert shown.evaluate("(e) => e.scrollWidth <= e.clientWidth && "
                                  "e.getBoundingClientRect().right <= e.parentElement.getBoundingClientRect().right")
            page.locator("body").click(position={"x": 5, "y": 990})  # focus off the fields
            page.keyboard.press("ArrowLeft")
            page.wait_for_function(title, arg=failed_at - 1)
            page.keyboard.press("ArrowRight")
            page.wait_for_function(title, arg=failed_at)
            page.keyboard.press("Home")
            page.wait_for_function(title, arg=0)
            page.keyboard.press("j")
            page.wait_for_function(title, arg=1)
            page.keyboard.press("End")
            page.wait_for_function(title, arg=len(inspection.steps) - 1)
            page.locator("#compare").focus()  # typing a step number does not step
            page.keyboard.press("ArrowLeft")
            assert page.locator("#step-title").inner_text().find(f"Step {len(inspection.steps) - 1}:") >= 0
            assert errors == []
        finally:
            context.close()


def test_rule_a_card_taller_than_the_stage_scrolls_to_its_last_row_and_snackbar(page: Any) -> None:
    steps = inspect_file(SEQUENCE).steps
    snack = next(s.index for s in steps if "Address copied" in str(s.recorded_tree))
    _step(page, snack)
    page.wait_for_function("document.getElementById('stage-recorded').shadowRoot.querySelector('.wm-card') !== null")
    assert page.evaluate(IN_STAGE, ["stage-recorded", ".wm-card"]), "the card is cut by the stage"
    assert page.evaluate(IN_STAGE, ["stage-recorded", ".wm-snack-slot[data-open] .wm-snack"])
    body = "document.getElementById('stage-recorded').shadowRoot.querySelector('.wm-body')"
    assert page.evaluate(f"{body}.scrollHeight > {body}.clientHeight"), "the card's body scrolls"
    inside = page.evaluate("""() => {
      const host = document.getElementById('stage-recorded');
      const drawn = [...host.shadowRoot.querySelector('.wm-body').querySelectorAll('*')]
        .filter((e) => e.childElementCount === 0 && e.getBoundingClientRect().height > 0);
      const bottom = drawn.reduce((a, b) => b.getBoundingClientRect().bottom > a.getBoundingClientRect().bottom ? b : a);
      bottom.scrollIntoView({ block: 'nearest' });
      const box = host.getBoundingClientRect(), r = bottom.getBoundingClientRect();
      return [bottom.textContent, r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5];
    }""")
    assert inside[1], f"the card's last row ({inside[0]!r}) cannot be brought into the stage"
    assert "Disconnect" in inside[0]
