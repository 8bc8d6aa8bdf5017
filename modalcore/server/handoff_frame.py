"""The linked phone's approval frame (issue 44 item 1): the approval inside the phone's modal.

GET /continue-approve?session=S&request=E[&theme=T]
    The frame the phone's modal draws in ApproveTransaction (views/approve_transaction.py: only
    the phone's screen draws it; the host page's says "Waiting for your phone"). A page of the
    engine's origin framed only by the engine's origin (`frame-ancestors 'self'`: the phone's
    page, handoff.py), so a host page cannot show it. It draws the approval tree's rows from
    their bytes (approval_tree_script.py, as the approval frame does) and Approve and Reject; the
    phone's own key (the one the computer confirmed, in this origin's IndexedDB on the phone)
    signs `approval_text(...)` over those bytes with `seen` = "phone", through the phone's
    routes (`POST /continue/begin` and `/continue/approve`, naming the session: handoff.py).
    Only that key's signature approves: the same page opened anywhere else has no such key.

A request that is not waiting for this session's phone (none, another, answered, no phone
linked) gets `gone()` and changes nothing.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..slices.handoff import linked_key
from . import handoff_texts as T
from .approval_theme import style
from .approval_tree_script import OUTCOME_CSS, TREE_SCRIPT
from .frame_page import MAX_ID_CHARS, gone, page
from .handoff import PATH as PHONE_PATH, SEEN

if TYPE_CHECKING:
    from .hub import Hub

PATH = "/continue-approve"  # views/approve_transaction.PHONE_APPROVE_PATH

_CSS = """
body{margin:0;font:16px/1.45 system-ui,sans-serif;background:transparent;color:var(--fg)}
main{padding:4px 8px 8px}h1{font-size:18px;margin:0 0 8px}.who{font-size:13px;opacity:.7;margin-bottom:12px}
dl{display:grid;grid-template-columns:auto 1fr;gap:6px 12px;word-break:break-all;margin:0}dt{opacity:.7}dd{margin:0}
.row{display:flex;gap:12px;margin-top:16px}.row button{flex:1;padding:12px;border-radius:12px;border:0;font:inherit}
#approve{background:var(--accent,#3396ff);color:#fff}#state:empty{display:none}
"""

_SCRIPT = """
const S = %(data)s;
const state = document.getElementById('state'), buttons = document.querySelectorAll('.row button');
let key = null, challenge = null, shown = '';
const say = (text) => { state.textContent = text; };
async function begin() {
  const r = await post(S.path + '/begin', {session: S.session, public_key: key.spki, request: S.request});
  if (!r.ok) { say(S.t.gone); return; }
  shown = await drawTree(r.data.tree);
  // issue 43: the engine still simulates the outcome (at most 1.5 s): ask again
  if (outcomePending) { setTimeout(begin, 800); return; }
  challenge = r.data;
  for (const b of buttons) b.disabled = false;
}
async function decide(approve) {
  if (!challenge) return;
  for (const b of buttons) b.disabled = true;
  const text = ['modalcore-approve', S.session, S.request, challenge.digest, challenge.nonce,
                approve ? 'approve' : 'reject', S.seen, shown].join('\\n');
  const r = await post(S.path + '/approve', {session: S.session, request: S.request, approve, nonce: challenge.nonce,
    tree_hash: shown, public_key: key.spki, signature: await signText(key.pair, text)});
  challenge = null;
  say(r.ok ? (approve ? S.t.approved : S.t.rejected) : S.t.gone);
}
document.getElementById('approve').addEventListener('click', (e) => { if (e.isTrusted) decide(true); });
document.getElementById('reject').addEventListener('click', (e) => { if (e.isTrusted) decide(false); });
(async () => { key = await deviceKey(); await begin(); })().catch(() => say(S.t.nokey));
"""


def routes(hub: Hub) -> list[Route]:
    async def show(request: Request) -> Response:
        session, eid = request.query_params.get("session", ""), request.query_params.get("request", "")
        if not session or not eid or len(session) > MAX_ID_CHARS or len(eid) > MAX_ID_CHARS:
            return gone()
        model = await hub.peek(session)
        waiting = model.embedded.request if model is not None else None
        if model is None or not linked_key(model) or waiting is None or waiting.eid != eid or waiting.signing:
            return gone()
        language = T.language_of(model)
        computer = model.handoff.to == "computer"  # continued on a computer: this frame is the computer's
        say = {name: html.escape(T.word(text, language)) for name, text in
               (("title", T.COMPUTER_TITLE if computer else T.TITLE), ("approve", T.APPROVE), ("reject", T.REJECT))}
        data = json.dumps({"path": PHONE_PATH, "session": session, "request": eid, "seen": SEEN,
                           "t": T.words(T.COMPUTER_SCRIPT if computer else T.PHONE_SCRIPT, language)}
                          ).replace("<", "\\u003c")
        body = ("<main><h1></h1><div class=who id=who></div><section id=outcome aria-label=Outcome hidden></section>"
                "<dl></dl><p id=state role=status></p>"
                f"<div class=row><button id=reject type=button disabled>{say['reject']}</button>"
                f"<button id=approve type=button disabled>{say['approve']}</button></div></main>")
        mode = "light" if model.theme.mode == "light" else "dark"
        return page(hub, model.project_id, say["title"], mode, style(model.theme) + _CSS + OUTCOME_CSS, body,
                    _SCRIPT % {"data": data} + TREE_SCRIPT, ancestors="'self'", language=language)

    return [Route(PATH, show, methods=["GET"])]
