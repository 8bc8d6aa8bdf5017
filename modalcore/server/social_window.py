"""GET /embedded/social/window?session=S&provider=P: the window one press on Connect's social
button opens (issue 39).

Only a click may open a window, and the click on Connect lands on the host page (the renderer
draws the button there): its user activation cannot reach ConnectingSocial's frame. So the
renderer opens this engine-origin page in the click (the button's `popup` prop, named
`modalcore-popup`; protocol/PROTOCOL.md), and the frame takes it: a frame of the engine's origin
finds a window of the same origin by name (`window.open('', 'modalcore-popup')`, checked in
Chromium; the host page's `frames` do not list the frame, which is in a shadow root, so the page
cannot find the frame). The frame looks only when this page was served for its session
(`OpenedWindows`, told in the frame's page), takes the window only if it shows this page for its
session (it reads its location: same origin), begins the sign-in in it as its own button does
(server/verify_script.py SOCIAL_SCRIPT) and navigates it to the provider.

`OpenedWindows` keeps those sessions in the session store (`SessionStore.notes.mark`): with Redis every
worker of every host sees that a window was served, so the frame served by another host than the
window page still looks for it (issue 42); a store only one process uses keeps them in memory.

What the host page can do with this window (it opened it, so it may navigate it): what it could
always do, open windows. It cannot read it (another origin), cannot make the frame confirm a
sign-in the frame did not begin, and cannot learn the frame's key or bind. A host server that
GETs this page without a window only makes the frame look for one: no window is found, and the
blank one the lookup may make (no user activation: a popup blocker refuses it) is closed at once.
The page holds no secret: the session id is in the host's tree already.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..flows.social import NAMES
from ..store.base import SessionStore
from ..store.notes import MAX_MARKS
from ..store.memory import MemoryStore
from ..views.connecting_social import WINDOW_PATH
from .approval_theme import style
from .frame_page import MAX_ID_CHARS, gone, page

if TYPE_CHECKING:
    from ..embedded.social import SocialSignIns
    from .hub import Hub

log = logging.getLogger(__name__)
WAIT_MS = 30_000  # then the page says nobody took it (the frame loads after the engine's answer)
MAX_PROVIDER_CHARS = 32
SEEN_FOR_MS = 120_000
MAX_SEEN = MAX_MARKS  # a store only one process uses keeps at most this many

WINDOW_SCRIPT = """
const S = %(data)s, text = document.getElementById('state');
if (!window.opener) text.textContent = 'Open this sign-in from the wallet to continue.';
setTimeout(() => { text.textContent = 'The wallet did not take this window. Close it and try again.'; }, S.wait);
"""


class OpenedWindows:
    """The sessions this page was served for lately: a frame of such a session looks for the
    window. In the session store (`store`; none: this process's memory), each for SEEN_FOR_MS.
    A store that cannot be reached answers "not served": the frame keeps its own button."""

    def __init__(self, store: SessionStore | None = None) -> None:
        self._store = store if store is not None else MemoryStore()

    async def seen(self, session: str, now: int) -> None:
        try:
            await self._store.notes.mark(f"window:{session}", now, SEEN_FOR_MS)
        except Exception as error:  # the store's outage: the window is just not looked for
            log.warning("served window not recorded: %s", type(error).__name__)

    async def recent(self, session: str, now: int) -> bool:
        try:
            return await self._store.notes.marked(f"window:{session}", now)
        except Exception as error:
            log.warning("served windows unreadable: %s", type(error).__name__)
            return False


def routes(hub: Hub, signins: SocialSignIns, windows: OpenedWindows) -> list[Route]:
    async def window(request: Request) -> Response:
        session = request.query_params.get("session", "")
        provider = request.query_params.get("provider", "")
        if not session or len(session) > MAX_ID_CHARS or len(provider) > MAX_PROVIDER_CHARS \
                or provider not in signins.providers():
            return gone("This sign-in is no longer waiting.")
        model = await hub.peek(session)  # wherever its socket is: not taken over (issue 42)
        if model is None or model.embedded.identity:
            return gone("This sign-in is no longer waiting.")
        await windows.seen(session, hub.clock.now_ms())
        name = NAMES.get(provider, provider)
        data = json.dumps({"wait": WAIT_MS})
        mode = "light" if model.theme.mode == "light" else "dark"
        body = f"<div id=verify><p id=state role=status>Opening {name}…</p></div>"
        return page(hub, model.project_id, f"Sign in with {name}", mode, style(model.theme), body,
                    WINDOW_SCRIPT % {"data": data}, ancestors="'none'")

    return [Route(WINDOW_PATH, window, methods=["GET"])]
