"""GET /embedded/key: the key window, for browsers that give the engine-origin frame no storage
(docs/features/embedded-wallet.md "Cross-site hosting").

When the host page is on another site than the engine, a browser that blocks third-party
cookies (Chrome's Incognito, this Debian Chromium's new profiles, Brave, Firefox's strict mode,
Safari without a storage-access grant) also refuses the frame IndexedDB, so the frame cannot
keep the device key (ECDSA P-256, non-extractable). This page, opened by a press inside the
frame (the code typed, or "Open the key window") as a top-level window of the engine's origin,
has first-party storage: it keeps this browser's key there (frame_page.KEY_SCRIPT, the same code
as the frame) and signs for the frame over `postMessage`.

What it answers: messages from documents of its own origin only (`event.origin`; the host page
can find this window by name, but its messages carry its own origin and are ignored), asking the
public key or a signature over a bounded text of the engine's own forms (`modalcore-…`). The
private key never leaves this origin, as before; what a signature authorises is still checked
by the engine (a registration needs the mailed code, an approval the frame's checks). The page
cannot be framed (`frame-ancestors 'none'`) and holds no secret in its HTML.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..rules import limits as L
from ..slices.theme import ThemeState
from .approval_theme import style
from .frame_page import KEY_PATH, page

if TYPE_CHECKING:
    from .hub import Hub

TEXT_PREFIX = "modalcore-"
SHOWN = "This window keeps this browser's key for the wallet. Keep it open while you use the wallet."
NO_STORAGE = "This browser keeps no storage for the wallet, even in its own window: the wallet cannot sign here."

# the key window's service to this origin's frames: the public key, a signature over one of the
# engine's own texts; also run by the social sign-in's callback page when that window kept the key
# for the sign-in (server/social.py). `keyServed` says a frame asked.
SERVE_SCRIPT = """
const W = %(data)s;
let keyServed = false;
addEventListener('message', async (e) => {
  const d = e.data;
  if (e.origin !== location.origin || !e.source || e.source === window || typeof d !== 'object' || d === null
      || d.modalcore !== 'key' || typeof d.id !== 'number') return;
  keyServed = true;
  const reply = {modalcore: 'key-reply', id: d.id};
  try {
    const db = await keyStore();
    if (!db) throw new KeyBlocked(W.none);
    const key = await localKey(db);
    reply.spki = key.spki;
    if (d.op === 'sign') {
      if (typeof d.text !== 'string' || d.text.length > W.max || !d.text.startsWith(W.prefix)) return;
      reply.signature = await signText(key.pair, d.text);
    }
  } catch (err) { reply.error = 'blocked'; }
  e.source.postMessage(reply, location.origin);
});
"""
WINDOW_SCRIPT = SERVE_SCRIPT + """
const text = document.getElementById('state');
keyStore().then((db) => { text.textContent = db ? W.shown : W.none; });
"""


def serve_data() -> str:
    """SERVE_SCRIPT's `W`: its texts and bounds, as JSON safe inside a script element."""
    return json.dumps({"shown": SHOWN, "none": NO_STORAGE, "prefix": TEXT_PREFIX,
                       "max": L.APPROVAL_BODY_BYTES}).replace("<", "\\u003c")


def routes(hub: Hub) -> list[Route]:
    async def window(request: Request) -> Response:
        body = "<div id=verify><p id=state role=status></p></div>"
        return page(hub, "", "Wallet key", "dark", style(ThemeState()), body, WINDOW_SCRIPT % {"data": serve_data()},
                    ancestors="'none'")

    return [Route(KEY_PATH, window, methods=["GET"])]
