"""The session inspector in Chromium (issue 20, part 1): step through a recorded send with the
modal drawn by the renderer's own components, open a tampered recording at its divergence
with both trees side by side, and export a step as a pytest file that passes (and one that
fails on the tampered recording)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.inspect.recording import Inspection, inspect_file
from modalcore.inspect.server import create_inspector
from modalcore.replay.screen import texts_on_screen
from modalcore_testing import serve_app

from .conftest import ARTIFACTS, REPO_ROOT, TIMEOUT_MS, rebuild_renderer_if_stale
from .recorded_send import record_send

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

TAMPERED_TEXT = "9.99"


@pytest.fixture(scope="module")
def stage_bundle(renderer_dist: Path) -> Path:
    """dist/inspect.js, rebuilt when the stage or a component is newer."""
    renderer = REPO_ROOT / "renderer"
    bundle = renderer_dist / "inspect.js"
    sources = [*renderer.glob("src/**/*"), *renderer.glob("inspect/*"), renderer / "build.mjs"]
    rebuild_renderer_if_stale([bundle], sources)
    return bundle


def tamper(source: Path, target: Path, step_line: int, next_line: int) -> None:
    """Change the amount in the frames recorded for one input (as if yesterday's engine had
    drawn another one)."""
    lines = source.read_text().splitlines(keepends=True)
    changed = 0
    for number in range(step_line, next_line - 1):  # the out lines after the input's line
        if '"k":"out"' in lines[number] and "1.25" in lines[number]:
            lines[number] = lines[number].replace("1.25", TAMPERED_TEXT)
            changed += 1
    assert changed, "the preview's frames show the amount"
    target.write_text("".join(lines))


@pytest.fixture(scope="module")
def recordings(devchains: ChainsInfo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from modalcore_dev.devchain.pytest_plugin import isolated

    from concurrent.futures import ThreadPoolExecutor

    folder = tmp_path_factory.mktemp("recordings")
    with isolated(devchains) as info, ThreadPoolExecutor(1) as pool:
        # its own thread: the driver runs services with asyncio.run, and sync Playwright holds
        # an event loop in this one
        pool.submit(record_send, info, folder / "send.jsonl").result()
    yield folder


def preview_step(inspection: Inspection) -> int:
    return next(s.index for s in inspection.steps
                if s.summary()["view"] == "WalletSendPreview" and s.kind == "intent")


class Inspector:
    def __init__(self, page: Any, base: str) -> None:
        self.page, self.base = page, base
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.set_default_timeout(TIMEOUT_MS)

    def step_is(self, index: int) -> None:
        self.page.wait_for_function(
            "(i) => document.getElementById('step-title').textContent.startsWith(`Step ${i}:`)",
            arg=index)

    def stage_text(self, stage: str) -> str:
        return str(self.page.evaluate(
            "(id) => document.getElementById(id).shadowRoot.textContent", stage))

    def card_view(self, stage: str) -> str | None:
        found: str | None = self.page.evaluate(
            "(id) => document.getElementById(id).shadowRoot.querySelector('.wm-card')"
            "?.getAttribute('data-view') ?? null", stage)
        return found


@pytest.fixture
def inspector(recordings: Path, browser: Any, stage_bundle: Path,
              tmp_path: Path) -> Iterator[tuple[Inspector, Path, Path]]:
    exported = tmp_path / "exported"
    with serve_app(create_inspector(recordings, exported)) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            yield Inspector(context.new_page(), server.http_url), recordings, exported
        finally:
            context.close()


def run_pytest(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(path)], cwd=path.parent, capture_output=True, text=True,
                          timeout=300, check=False)


def test_rule_stepping_through_a_recorded_send_draws_each_recorded_tree(
        inspector: tuple[Inspector, Path, Path]) -> None:
    ui, folder, exported = inspector
    inspection = inspect_file(folder / "send.jsonl")
    ui.page.goto(ui.base + "/")
    row = ui.page.locator('.rec[data-name="send.jsonl"]')
    assert re.search(r"send.jsonl · demo · http://localhost:8000 · \d+ steps", row.inner_text())
    assert "replays identically" in row.inner_text()
    row.click()
    ui.step_is(0)
    for step in inspection.steps:
        ui.step_is(step.index)
        summary = step.summary()
        if summary["open"] and step.recorded_tree is not None:
            ui.page.wait_for_function(
                "([id, v]) => document.getElementById(id).shadowRoot.querySelector("
                "`.wm-card[data-view=\"${v}\"]`) !== null", arg=["stage-recorded", summary["view"]])
            drawn = ui.stage_text("stage-recorded")
            missing = [t for t in texts_on_screen(step.recorded_tree) if t not in drawn]
            assert not missing, f"step {step.index} ({summary['view']}) does not draw {missing}"
        else:
            assert ui.page.locator("#stage-recorded-note").is_visible()
        assert ui.page.locator("#replayed-box").is_hidden()  # nothing diverges
        if step.index < len(inspection.steps) - 1:
            ui.page.locator("#next").click()
    last = len(inspection.steps) - 1  # issue 46 item 5: keys step too
    ui.page.keyboard.press("Home")
    ui.step_is(0)
    ui.page.keyboard.press("ArrowRight")
    ui.step_is(1)
    ui.page.keyboard.press("ArrowLeft")
    ui.step_is(0)
    ui.page.keyboard.press("End")
    ui.step_is(last)
    numbers = ui.page.locator("#timeline li .num").all_inner_texts()
    assert numbers == [str(s.index) for s in inspection.steps]  # a recording's rows: step numbers
    preview = preview_step(inspection)
    ui.page.goto(f"{ui.base}/#send.jsonl/{preview}")
    ui.step_is(preview)
    assert "1.25" in ui.stage_text("stage-recorded")
    assert "WalletSendPreview" in ui.page.locator("#step-title").inner_text()
    assert ui.page.locator("#model-diff").inner_text().strip() != "(no change)"
    frames = ui.page.locator("#frames").inner_text()
    assert re.search(r"(patch|snapshot)\s+\d+ B", frames)
    ui.page.locator("#export").click()
    ui.page.wait_for_function("document.getElementById('exported').textContent.startsWith('wrote')")
    (written,) = exported.glob("test_*.py")
    done = run_pytest(written)
    assert done.returncode == 0, done.stdout + done.stderr
    assert ui.errors == []


def test_rule_a_tampered_recording_opens_at_its_divergence_with_both_trees(
        inspector: tuple[Inspector, Path, Path]) -> None:
    ui, folder, exported = inspector
    inspection = inspect_file(folder / "send.jsonl")
    preview = preview_step(inspection)
    tamper(folder / "send.jsonl", folder / "tampered.jsonl", inspection.steps[preview].line,
           inspection.steps[preview + 1].line)
    try:
        ui.page.goto(ui.base + "/")
        row = ui.page.locator('.rec[data-name="tampered.jsonl"]')
        assert f"diverges at step {preview}" in row.inner_text()
        row.click()
        ui.step_is(preview)  # opened at the first differing step
        assert ui.page.locator("#replayed-box").is_visible()
        assert TAMPERED_TEXT in ui.stage_text("stage-recorded")
        replayed = ui.stage_text("stage-replayed")
        assert "1.25" in replayed and TAMPERED_TEXT not in replayed
        assert ui.card_view("stage-recorded") == ui.card_view("stage-replayed") == "WalletSendPreview"
        assert TAMPERED_TEXT in ui.page.locator("#tree-diff").inner_text()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        ui.page.screenshot(path=str(ARTIFACTS / "inspector-divergence.png"))
        ui.page.locator("#export").click()
        ui.page.wait_for_function("document.getElementById('exported').textContent.startsWith('wrote')")
        (written,) = exported.glob("test_tampered*.py")
        done = run_pytest(written)
        assert done.returncode == 1, done.stdout  # today's engine draws 1.25, not 9.99
        assert ui.errors == []
    finally:
        (folder / "tampered.jsonl").unlink()
