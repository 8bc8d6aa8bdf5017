"""The desktop's "Yes, it does" for continue on your phone (issue 44 item 1), in a frame of the
engine's origin, as the approval (approval.py): linking a phone's key lets that phone approve the
embedded wallet's requests, so the host page (which can press anything the renderer draws) must
not be able to confirm.

GET  /continue-confirm?session=S
    ContinueOnPhone's frame while a phone waits: the code and "Yes, it does" (frame_page.py: nonce
    CSP, frame-ancestors of the project's origins; approval_guard.py: shown by the session's site
    and visibly, or Yes stays off). It holds no secret.

POST /continue-confirm/begin   {session, public_key}
    `{nonce, registered}`: a fresh challenge; whether this browser's key is registered for the
    session's embedded account (a browser whose key is not cannot confirm: it verifies in the
    approval frame first).

POST /continue-confirm          {session, nonce, seen, public_key, signature}
    Counts only with the signature of a key registered for the session's embedded account over
    `modalcore-continue-confirm\\n{session}\\n{link digest}\\n{phone key}\\n{nonce}\\n{seen}`, with
    evidence the frame was shown (approval_guard.refusal) and a nonce of this link: then
    `PhoneConfirmed` is delivered. Anything else: 400/403/404, nothing changes.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..embedded.devicekeys import BadPublicKey, parse_public_key
from ..slices.handoff import CONFIRM_PATH, PhoneConfirmed, confirmable
from . import handoff_texts as T
from .approval import issue_nonce, nonce_ok
from .approval_guard import GUARD_CSS, guard_script, parse_seen, refusal
from .approval_theme import style
from .frame_page import MAX_ID_CHARS, from_own_frame, gone, json_body, page, refused

if TYPE_CHECKING:
    from ..embedded.service import EmbeddedWallet
    from ..slices.model import Model
    from .hub import Hub


def confirm_text(session: str, digest: str, phone_key: str, nonce: str, seen: str) -> bytes:
    return f"modalcore-continue-confirm\n{session}\n{digest}\n{phone_key}\n{nonce}\n{seen}".encode()


def _challenge_id(model: Model) -> str:
    return "continue:" + model.handoff.digest


_CSS = ("body{margin:0;padding:8px 4px;min-height:140px;box-sizing:border-box;font:15px/1.4 system-ui,sans-serif;background:transparent;color:var(--fg)}"
        "#approve{width:100%;padding:12px;border:0;border-radius:12px;font:inherit;font-weight:600;"
        "background:var(--accent,#3396ff);color:#fff}#approve:disabled{opacity:.5}#state{min-height:1.2em;font-size:13px}"
        "#who{display:none}")

_SCRIPT = """
const S = %(data)s;
const approveButton = document.getElementById('approve'), state = document.getElementById('state');
%(guard)s
let key = null, challenge = null;
async function ready() {
  if (!guard.here) return;
  if (!key) {
    try { key = await deviceKey('look'); } catch (e) {
      // no storage for this frame (a cross-site host) and no key window open: said, with the
      // press that opens it, as the approval frame does
      if (e instanceof KeyBlocked) { offerKeyWindow(ready); return; }
      throw e;
    }
  }
  const r = await post(S.path + '/begin', {session: S.session, public_key: key.spki});
  if (!r.ok) { state.textContent = S.t.gone; return; }
  challenge = r.data;
  guard.registered = challenge.registered; guard.restart();
  if (!challenge.registered) state.textContent = S.t.again;
}
approveButton.addEventListener('click', async (e) => {
  if (!e.isTrusted || !challenge || !guard.ok()) return;
  const seen = guard.evidence('visible');
  guard.deciding = true; guard.refresh();
  const text = ['modalcore-continue-confirm', S.session, S.digest, S.phone, challenge.nonce, seen].join('\\n');
  const r = await post(S.path, {session: S.session, nonce: challenge.nonce, seen, public_key: key.spki,
                                signature: await signText(key.pair, text)});
  state.textContent = r.ok ? S.t.confirmed : S.t.failed;
});
ready().catch(() => { state.textContent = S.t.nokey; });
"""


async def _waiting(hub: Hub, session: str) -> tuple[str, Model] | None:
    """The session as its owner holds it, wherever its socket is (issue 42: its events go
    through `hub.route`)."""
    if not session or len(session) > MAX_ID_CHARS:
        return None
    model = await hub.peek(session)
    if model is None or not confirmable(model):
        return None
    return session, model


def routes(hub: Hub, secret: bytes, wallet: EmbeddedWallet | None) -> list[Route]:
    async def show(request: Request) -> Response:
        session = request.query_params.get("session", "")
        found = await _waiting(hub, session)
        if found is None:
            return gone("No phone is waiting.")
        _, model = found
        language = T.language_of(model)
        data = json.dumps({"path": CONFIRM_PATH, "session": session, "origin": model.origin, "popup": False,
                           "digest": model.handoff.digest, "phone": model.handoff.phone_key,
                           "t": T.words(T.CONFIRM_SCRIPT, language)}).replace("<", "\\u003c")
        code = html.escape(f"{model.handoff.code[:3]} {model.handoff.code[3:]}")
        yes = html.escape(T.word(T.YES, language))
        body = (f"<div id=who hidden></div><p id=shown role=status></p>"
                f"<button id=approve type=button disabled aria-label='{yes}: {code}'>{yes}</button>"
                "<div id=state role=status></div>")
        mode = "light" if model.theme.mode == "light" else "dark"
        title = T.CONFIRM_COMPUTER if model.handoff.to == "computer" else T.CONFIRM_TITLE
        return page(hub, model.project_id, html.escape(T.word(title, language)), mode,
                    style(model.theme) + GUARD_CSS + _CSS, body, _SCRIPT % {"data": data, "guard": guard_script()},
                    language=language)

    async def begin(request: Request) -> Response:
        data = await json_body(request, ("session", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        try:
            key_id, _ = parse_public_key(data["public_key"])
        except BadPublicKey:
            return refused(400, "not a public key")
        found = await _waiting(hub, data["session"])
        if found is None:
            return refused(404, "no phone is waiting")
        _, model = found
        registered = wallet is not None and wallet.devices.public_key(model.embedded.identity, key_id) is not None
        return JSONResponse({"nonce": issue_nonce(secret, model.session_id, _challenge_id(model), hub.clock.now_ms()),
                             "registered": registered})

    async def confirm(request: Request) -> Response:
        data = await json_body(request, ("session", "nonce", "seen", "public_key", "signature"))
        if data is None:
            return refused(400, "malformed body")
        if not from_own_frame(request):
            return refused(403, "only the confirmation frame may confirm")
        found = await _waiting(hub, data["session"])
        if found is None:
            return refused(404, "no phone is waiting")
        session, model = found
        if not nonce_ok(secret, model.session_id, _challenge_id(model), data["nonce"], hub.clock.now_ms()):
            return refused(403, "not a challenge of this phone")
        why = refusal(parse_seen(data["seen"]), model.origin)
        if why is not None:
            return refused(403, why.value)
        try:
            key_id, _ = parse_public_key(data["public_key"])
        except BadPublicKey:
            return refused(403, "not a key of this wallet")
        state = model.handoff
        text = confirm_text(model.session_id, state.digest, state.phone_key, data["nonce"], data["seen"])
        if wallet is None or not wallet.devices.verify(model.embedded.identity, key_id, text, data["signature"]):
            return refused(403, "not a key of this wallet")
        await hub.route(session, PhoneConfirmed(digest=state.digest, public_key=state.phone_key))
        return JSONResponse({"ok": True})

    return [Route(CONFIRM_PATH, show, methods=["GET"]), Route(CONFIRM_PATH + "/begin", begin, methods=["POST"]),
            Route(CONFIRM_PATH, confirm, methods=["POST"])]
