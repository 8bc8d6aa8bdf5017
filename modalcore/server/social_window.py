"""GET /embedded/social/window?session=S&provider=P: the window one press on Connect's social
button opens (issue 39).

Only a click may open a window, and the click on Connect lands on the host page (the renderer
draws the button there): its user activation cannot reach ConnectingSocial's frame, and a
cross-origin frame cannot find a window its host page opened by name. So the renderer opens this
engine-origin page in the click (the button's `popup` prop, protocol/PROTOCOL.md), and the page
hands itself to the frame: it posts `{modalcore: 'social-window', session}` to every frame of
the window that opened it, with target origin the engine's (a host page's frames of another
origin never receive it), every 100 ms for a bounded time, until an engine-origin frame of its
opener answers `{modalcore: 'social-go', url}` with the provider's authorization URL; then it
navigates itself there. From then on it is the popup the frame began a sign-in in
(server/verify.py SOCIAL_SCRIPT): the callback asks that frame to confirm, the frame confirms
only the state it began (server/social.py).

What the host page can do with this window (it opened it, so it may navigate it): what it could
always do, open windows. It cannot read it (another origin), cannot make the frame confirm a
sign-in the frame did not begin, and cannot learn the frame's key or bind. The page holds no
secret: the session id is in the host's tree already.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..flows.social import NAMES
from ..views.connecting_social import WINDOW_PATH
from .approval_theme import style
from .frame_page import MAX_ID_CHARS, gone, page

if TYPE_CHECKING:
    from ..embedded.social import SocialSignIns
    from .hub import Hub

ASK_EVERY_MS = 100
ASK_TIMES = 300  # 30 s: the frame loads after the engine's answer to the press, on a slow phone too
MAX_PROVIDER_CHARS = 32

WINDOW_SCRIPT = """
const S = %(data)s, text = document.getElementById('state');
const targets = () => { const o = window.opener; if (!o) return [];
  const all = [o]; for (let i = 0; i < o.frames.length; i++) all.push(o.frames[i]); return all; };
let tries = 0, claimed = false;
function ask() {
  if (claimed) return;
  if (!window.opener) { text.textContent = 'Open this sign-in from the wallet to continue.'; return; }
  for (const w of targets()) { try { w.postMessage({modalcore: 'social-window', session: S.session}, location.origin); } catch (e) {} }
  if (++tries < S.times) setTimeout(ask, S.every);
  else text.textContent = 'The wallet did not answer. Close this window and try again.';
}
window.addEventListener('message', (e) => {
  if (claimed || e.origin !== location.origin || !e.data || e.data.modalcore !== 'social-go') return;
  if (!targets().includes(e.source)) return;
  let url = null;
  try { url = new URL(String(e.data.url)); } catch (err) { return; }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  claimed = true;
  location.replace(url.toString());
});
ask();
"""


def routes(hub: Hub, signins: SocialSignIns) -> list[Route]:
    async def window(request: Request) -> Response:
        session = request.query_params.get("session", "")
        provider = request.query_params.get("provider", "")
        if not session or len(session) > MAX_ID_CHARS or len(provider) > MAX_PROVIDER_CHARS \
                or provider not in signins.providers():
            return gone("This sign-in is no longer waiting.")
        runner = await hub.find(session)
        if runner is None or runner.session.model.embedded.identity:
            return gone("This sign-in is no longer waiting.")
        model = runner.session.model
        name = NAMES.get(provider, provider)
        data = json.dumps({"session": session, "every": ASK_EVERY_MS, "times": ASK_TIMES}).replace("<", "\\u003c")
        mode = "light" if model.theme.mode == "light" else "dark"
        body = f"<div id=verify><p id=state role=status>Opening {name}…</p></div>"
        return page(hub, model.project_id, f"Sign in with {name}", mode, style(model.theme), body,
                    WINDOW_SCRIPT % {"data": data}, ancestors="'none'")

    return [Route(WINDOW_PATH, window, methods=["GET"])]
