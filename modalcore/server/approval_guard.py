"""What makes an Approve in the approval frame count (issue 38 §2, §3): the frame was visibly
shown, and it is shown by the site the session belongs to.

**Shown.** A host page may frame the approval page (its origin is allowed) and so may hide it:
opacity, an overlay that lets clicks through, a transform, a filter, a tiny or off-screen frame.
Inside the frame, IntersectionObserver v2 (`trackVisibility`, Chromium) watches a sentinel that
covers the frame's whole viewport: `isVisible` is false under opacity < 1, transforms, filters
and anything drawn over it, and a ratio under 1 means part of the frame is clipped or off-screen.
Approve is on only while the frame is so shown, at least `MIN_FRAME_WIDTH` x `MIN_FRAME_HEIGHT`,
and has been for `MIN_SHOWN_MS` without a break; the frame says why it is off. A browser without
IntersectionObserver v2 approves in a popup window of the engine's origin instead (the host can
neither cover nor restyle another top-level window): the frame's Approve opens it, the popup's
Approve (on once the popup has been shown for `MIN_SHOWN_MS`, so the second click of a double
click cannot land on it) answers only its opener, of the engine's origin, and the frame signs.

**Where.** The socket's `Origin` is the host's word (a server can forge it). The frame reads
where it is really embedded (`location.ancestorOrigins[0]`; where a browser lacks it, the
origin of `document.referrer`, which the renderer's iframe always sends) and refuses, saying so,
when that is not the session's origin; the engine does the same with the frame request's
`Referer` before it draws the page (approval.py).

**Evidence.** What the frame saw is part of what its key signs (`seen`:
`"{how} {shown_ms} {embedded_in}"`), and the engine refuses an Approve whose evidence is missing,
too short or names another site. A host's script cannot run in the frame (another origin) and
cannot sign without the frame's key, so it cannot approve by posting directly either.
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass

from .origins import parse_origin

MIN_SHOWN_MS = 500  # the frame continuously and fully shown this long before Approve counts
MIN_FRAME_WIDTH = 200  # CSS px of the frame's viewport
MIN_FRAME_HEIGHT = 120  # the renderer's smallest fitted frame (renderer/src/components/frame.tsx)
IO_DELAY_MS = 100  # IntersectionObserver v2's smallest delay
SEEN_CHARS = 300
_SEEN = re.compile(r"^(visible|popup) (\d{1,9}) (\S{1,256})$")


class SeenRefused(enum.Enum):
    """Why the engine refuses an Approve's evidence."""

    MALFORMED = "no evidence the frame was shown"
    NOT_SHOWN = "the frame was not shown long enough"
    ELSEWHERE = "the frame is shown by another site"


@dataclass(frozen=True)
class Seen:
    how: str  # "visible": IntersectionObserver v2; "popup": the engine-origin popup window
    shown_ms: int
    embedded_in: str


def parse_seen(text: object) -> Seen | None:
    if not isinstance(text, str) or len(text) > SEEN_CHARS:
        return None
    found = _SEEN.match(text)
    if found is None:
        return None
    return Seen(found.group(1), int(found.group(2)), found.group(3))


def same_origin(a: str, b: str) -> bool:
    left, right = parse_origin(a), parse_origin(b)
    return left is not None and left == right


def refusal(seen: Seen | None, session_origin: str) -> SeenRefused | None:
    """None when the evidence lets an Approve count for a session of `session_origin`."""
    if seen is None:
        return SeenRefused.MALFORMED
    if not same_origin(seen.embedded_in, session_origin):
        return SeenRefused.ELSEWHERE
    if seen.how == "visible" and seen.shown_ms < MIN_SHOWN_MS:
        return SeenRefused.NOT_SHOWN
    return None


def referer_origin(referer: str | None) -> str | None:
    """The origin of a `Referer` header (scheme://host[:port]), None without a readable one."""
    if not referer:
        return None
    found = re.match(r"^(https?://[^/?#]+)", referer.strip())
    if found is None:
        return None
    origin = parse_origin(found.group(1))
    return found.group(1) if origin is not None else None


# the page's refusal when it is shown by another site than the session's (no origin named but
# the one the visitor is on)
ELSEWHERE_TEXT = "This window is shown on %s, not on the site that made this request. Nothing can be approved here."
NOWHERE_TEXT = "This window cannot tell which site shows it. Nothing can be approved here."

# Runs before the approval script: `guard` decides whether Approve may be on and what the
# visitor reads about it; `guard.refresh()` sets the button. Uses S (origin, popup), approveButton.
GUARD_SCRIPT = """
const guard = (() => {
  const MIN_MS = %(min_ms)d, MIN_W = %(min_w)d, MIN_H = %(min_h)d;
  const note = document.getElementById('shown');
  const g = {since: null, seen: false, deciding: false, registered: false, place: '', timer: 0,
             ioV2: typeof IntersectionObserverEntry !== 'undefined' && 'isVisible' in IntersectionObserverEntry.prototype};
  const a = location.ancestorOrigins;
  if (S.popup) g.place = S.origin;
  else if (a !== undefined) g.place = a.length ? a[0] : '';
  else { try { g.place = document.referrer ? new URL(document.referrer).origin : ''; } catch (e) { g.place = ''; } }
  g.here = g.place === S.origin;
  g.sized = () => innerWidth >= MIN_W && innerHeight >= MIN_H;
  g.shownMs = () => (g.seen && g.since !== null ? Math.floor(performance.now() - g.since) : 0);
  // watched: the popup (its own top-level window) and a frame with IntersectionObserver v2; a
  // frame without it only opens the popup, which is harmless
  g.watched = S.popup || g.ioV2;
  g.ok = () => g.here && (!g.watched || g.shownMs() >= MIN_MS);
  g.evidence = (how) => how + ' ' + (how === 'visible' ? g.shownMs() : 0) + ' ' + g.place;
  g.refresh = () => {
    const on = g.registered && !g.deciding && g.ok();
    approveButton.disabled = !on;
    note.textContent = !g.registered || g.deciding || !g.watched || on ? ''
      : !g.seen ? 'Approve is off while this window is hidden' : 'Approve turns on in a moment';
    note.title = note.textContent && 'Approve is off while this window is covered, faded, moved, resized or partly '
      + 'off screen; it turns on once the window has been fully shown for a moment';
  };
  // what IntersectionObserver v2 said last (g.io) and the frame's size decide; a break restarts the wait
  g.io = false;
  g.update = () => {
    const yes = g.io && g.sized();
    if (yes && !g.seen) { g.since = performance.now(); clearTimeout(g.timer); g.timer = setTimeout(g.refresh, MIN_MS + 20); }
    if (!yes) g.since = null;
    g.seen = yes; g.refresh();
  };
  // the frame changed (resized, or what it shows did): the wait starts again (a frame that
  // moved in the page also gets no clicks from Chromium for 500 ms)
  g.restart = () => { g.seen = false; g.update(); };
  if (!g.here) {
    const refused = document.createElement('p'); refused.id = 'elsewhere'; refused.setAttribute('role', 'alert');
    refused.textContent = g.place ? %(elsewhere)s.replace('%%s', g.place) : %(nowhere)s;
    document.body.replaceChildren(refused);
    return g;
  }
  document.getElementById('who').hidden = false;
  if (S.popup) {
    // a window of its own: nothing covers it, but a click meant for the page under it (a double
    // click that opened it) must not land on Approve: it waits while the window is shown
    const shown = () => { g.io = document.visibilityState === 'visible'; g.update(); };
    addEventListener('visibilitychange', shown);
    shown();
  } else if (g.ioV2) {
    const sentinel = document.createElement('div'); sentinel.id = 'sentinel'; sentinel.setAttribute('aria-hidden', 'true');
    document.body.append(sentinel);
    new IntersectionObserver((entries) => {
      const e = entries[entries.length - 1];
      g.io = e.isVisible && e.intersectionRatio >= 0.999; g.update();
    }, {threshold: [0, 0.25, 0.5, 0.75, 0.999, 1], trackVisibility: true, delay: %(delay)d}).observe(sentinel);
    addEventListener('resize', g.restart);
  }
  return g;
})();
"""

# the note keeps its one line whether it says something or not: a frame whose height changed
# moves in the page, and Chromium drops clicks on a cross-origin frame that moved in the last
# 500 ms (so Approve turning on must not move it)
GUARD_CSS = ("#sentinel{position:fixed;inset:0;pointer-events:none;z-index:2147483647}"
             "#shown{margin:0 0 8px;height:1.4em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;"
             "color:var(--fg-2);font-size:calc(var(--fm) * 1.2)}")


def guard_script() -> str:
    return GUARD_SCRIPT % {"min_ms": MIN_SHOWN_MS, "min_w": MIN_FRAME_WIDTH, "min_h": MIN_FRAME_HEIGHT,
                           "delay": IO_DELAY_MS, "elsewhere": json.dumps(ELSEWHERE_TEXT),
                           "nowhere": json.dumps(NOWHERE_TEXT)}
