"""In-page checks on the modal card (shadow root of `<modalcore-modal>`), shared by the browser
sweep and the per-defect browser tests.

- `clipped(demo)`: buttons, tags, chips, labels, tabs and links whose text does not fit
  (`scrollWidth > clientWidth`, or a line-clamped tile name taller than its box): no ellipsis is
  intended there. Row titles and addresses that end in an ellipsis by design are not listed.
- `outside(demo)`: visible elements that stick out of the card sideways (or, outside the
  scrolling body, at all), and a card that leaves the viewport.
- `card_box(demo)`: the card's rectangle once it stopped moving (animations settled).
- `axe(demo)`: axe-core (npm, renderer/node_modules) run inside Chromium on the modal: its serious
  and critical violations, colour contrast included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import REPO_ROOT, Demo

AXE = REPO_ROOT / "renderer" / "node_modules" / "axe-core" / "axe.min.js"

ROOT = "document.querySelector('modalcore-modal').shadowRoot"

NEVER_CUT = (
    ".wm-btn", ".wm-btn-label > span", ".wm-tag", ".wm-chip-text", ".wm-text[data-v=label]",
    ".wm-tab", ".wm-link", ".wm-unit", ".wm-snack-msg", ".wm-header-c .wm-text",
)

CLIPPED = """(selectors) => {
  const root = %s;
  const card = root.querySelector('.wm-card');
  const out = [];
  const seen = new Set();
  for (const el of card.querySelectorAll(selectors.join(','))) {
    if (seen.has(el) || el.getClientRects().length === 0 || !el.checkVisibility({visibilityProperty: true})) continue;
    seen.add(el);
    if (el.scrollWidth > el.clientWidth + 1) out.push((el.textContent || el.getAttribute('aria-label') || el.className).trim() + ` (${el.scrollWidth} > ${el.clientWidth})`);
  }
  for (const el of card.querySelectorAll('.wm-stack[data-grid] .wm-row-title')) {
    if (el.getClientRects().length && el.scrollHeight > el.clientHeight + 1) out.push(el.textContent.trim() + ' (tile name cut)');
  }
  return out;
}""" % ROOT

OUTSIDE = """() => {
  const root = %s;
  const card = root.querySelector('.wm-card');
  const body = card.querySelector('.wm-body');
  const c = card.getBoundingClientRect();
  const out = [];
  if (c.left < -1 || c.top < -1 || c.right > innerWidth + 1 || c.bottom > innerHeight + 1) out.push('card outside the viewport');
  for (const el of card.querySelectorAll('*')) {
    if (el.getClientRects().length === 0 || !el.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const inBody = body.contains(el);
    const sideways = r.left < c.left - 1 || r.right > c.right + 1;
    const vertical = !inBody && (r.top < c.top - 1 || r.bottom > c.bottom + 1);
    if (sideways || vertical) out.push(`${el.tagName.toLowerCase()}.${el.getAttribute('class')} "${(el.textContent || '').trim().slice(0, 30)}"`);
  }
  return out;
}""" % ROOT

# The card's box once nothing moves: no finite animation or transition running in the modal and
# the same rectangle two frames in a row.
SETTLED_BOX = """async () => {
  const root = %s;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  let last = '';
  for (let i = 0; i < 200; i++) {
    await frame();
    const card = root.querySelector('.wm-card');
    const moving = root.getAnimations().some((a) => {
      const t = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      return a.playState === 'running' && t && Number.isFinite(t.endTime);
    });
    const r = card.getBoundingClientRect();
    const box = [r.left, r.top, r.width, r.height].map(Math.round).join(',');
    if (!moving && box === last) return {left: r.left, top: r.top, width: r.width, height: r.height, bottom: r.bottom};
    last = box;
  }
  const r = root.querySelector('.wm-card').getBoundingClientRect();
  return {left: r.left, top: r.top, width: r.width, height: r.height, bottom: r.bottom, unsettled: true};
}""" % ROOT

AXE_RUN = """async () => {
  const host = document.querySelector('modalcore-modal');
  const result = await axe.run(host, {resultTypes: ['violations'],
    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map((n) => (n.failureSummary || '').split('\\n').slice(-1)[0] + ' @ ' + JSON.stringify(n.target)),
  }));
}"""


def clipped(demo: Demo) -> list[str]:
    found: list[str] = demo.eval(CLIPPED, list(NEVER_CUT))
    return found


def outside(demo: Demo) -> list[str]:
    found: list[str] = demo.eval(OUTSIDE)
    return found


def card_box(demo: Demo) -> dict[str, Any]:
    box: dict[str, Any] = demo.eval(SETTLED_BOX)
    return box


def axe(demo: Demo) -> list[dict[str, Any]]:
    if not demo.eval("typeof window.axe !== 'undefined'"):
        assert AXE.exists(), "needs renderer/node_modules/axe-core (make renderer)"
        demo.page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = demo.eval(AXE_RUN)
    return found


def screenshot(demo: Demo, folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    demo.page.screenshot(path=str(folder / f"{name}.png"))
