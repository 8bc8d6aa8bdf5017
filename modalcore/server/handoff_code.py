"""Continue on your computer (issue 44 item 1, phone to computer): the computer's side of a link
offered on a phone as a short address and a code to type (slices/handoff.py, `to` "computer").

GET  /continue
    The page the short address opens on the computer (framed by nobody): a field for the code.
    It holds no secret and belongs to no session (its words in the browser's language).

POST /continue/code    {code}
    Only from a page of the engine's origin. The code is read (`read_code`: at most 32
    characters, 8 of Crockford's base32), found in the session store's notes (the `handoff.token`
    service noted it, for twice the link's 2 minutes, under its SHA-256, with its session and the link's digest),
    and checked against that session's link on offer (`typed_code`, constant time): then
    `{link}` (`{session}.{token}`), which the page opens: from there it is the link's own page
    (server/handoff.py), claimed with the computer's key and confirmed on the phone. A code that
    is not one (`wrong_code`), or whose link expired or was used, is refused typed (`{error,
    text}`, 403 or 410) and routes nothing to any session. An address that was refused
    `FAILURES` times in `WINDOW_MS` is answered `too_many_attempts` (429) before its code is
    read (operator_limit.WrongTokens, one table per engine process).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..slices.handoff import LINK_TTL_MS, PATH as LINK_PATH, HandoffRefusal, link_token, read_code, typed_code
from . import handoff_texts as T
from .frame_page import from_engine_frame, json_body, page, refused
from .operator_limit import WrongTokens, client_address

if TYPE_CHECKING:
    from ..slices.model import Model
    from ..store.base import SessionStore
    from .hub import Hub

log = logging.getLogger(__name__)

PATH = LINK_PATH.rstrip("/")  # /continue: server/handoff.py's pages are under it
CODE_PATH = PATH + "/code"
NOTE = "continue-code"  # the store notes' kind: a typed code's session and link digest
NOTES_KEPT = 10_000  # codes on offer engine-wide (the oldest dropped first)
NOTE_MS = 2 * LINK_TTL_MS  # kept past the link's 2 minutes: a code typed late is told expired, not wrong
FAILURES = 5  # refused codes per address ...
WINDOW_MS = 600_000  # ... in 10 minutes, then too_many_attempts
WRONG_CODE = "wrong_code"
TOO_MANY = "too_many_attempts"
_TEXT = {WRONG_CODE: T.WRONG_CODE, TOO_MANY: T.TOO_MANY_CODES, HandoffRefusal.EXPIRED.value: T.EXPIRED_CODE,
         HandoffRefusal.USED.value: T.USED_CODE, HandoffRefusal.FOREIGN_ORIGIN.value: T.FOREIGN_LINK}
_STATUS = {TOO_MANY: 429, HandoffRefusal.EXPIRED.value: 410, HandoffRefusal.USED.value: 410}

_CSS = """
body{margin:0;font:16px/1.45 system-ui,sans-serif;background:#fff;color:#141414}
main{padding:32px 24px;max-width:420px;margin:0 auto}h1{font-size:20px;margin:0 0 16px}
input{width:100%;box-sizing:border-box;font:600 24px/1.2 ui-monospace,monospace;letter-spacing:4px;padding:12px;
border:1px solid #bbb;border-radius:12px;text-transform:uppercase}
button{margin-top:16px;width:100%;padding:12px;border:0;border-radius:12px;font:inherit;background:#3396ff;color:#fff}
#state{min-height:1.4em;margin-top:12px}
"""

_SCRIPT = """
const S = %(data)s;
const field = document.getElementById('code'), state = document.getElementById('state');
document.getElementById('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  if (!e.isTrusted) return;
  const r = await post(S.path, {code: field.value});
  if (r.ok && r.data.link) { location.replace(S.base + '/' + r.data.link); return; }
  document.body.dataset.refusal = r.data.error || 'refused';
  state.textContent = r.data.text || S.t.wrong;
});
"""


def note_name(code: str) -> str:
    return hashlib.sha256(f"modalcore-continue-code\n{code}".encode()).hexdigest()


async def keep_code(store: SessionStore, session: str, nonce: str, digest: str, now_ms: int) -> None:
    """Note the code of a link offered on a phone (the `handoff.token` service; raises on the
    store's outage, and the phone then says the link could not be made)."""
    await store.notes.note(NOTE, note_name(typed_code(session, nonce)), f"{session}\n{digest}".encode(), now_ms,
                           NOTE_MS, NOTES_KEPT)


def _found_link(model: Model, session: str, code: str) -> str | None:
    """The link of `model`'s offer when `code` is its code."""
    state = model.handoff
    if state.status != "offered" or state.to != "computer":
        return None
    if not hmac.compare_digest(typed_code(session, state.nonce), code):
        return None
    return f"{session}.{link_token(session, state.nonce)}"


def _refusal(model: Model, digest: str, now: int) -> str | None:
    """`used_link` or `expired_link` when the code's link was claimed or ran out, else None."""
    state = model.handoff
    if digest in state.spent:
        return HandoffRefusal.USED.value
    if state.digest == digest and (state.status == "expired" or (state.status == "offered" and now >= state.expires_at)):
        return HandoffRefusal.EXPIRED.value
    return None


def routes(hub: Hub) -> list[Route]:
    attempts = WrongTokens(FAILURES, WINDOW_MS, hub.clock.now_ms)

    def answer(error: str, language: str, address: str) -> JSONResponse:
        if error != TOO_MANY:
            attempts.failed(address)
        log.info("continue-on-computer code refused: %s", error)
        return JSONResponse({"error": error, "text": T.word(_TEXT.get(error, T.WRONG_CODE), language)},
                            status_code=_STATUS.get(error, 403))

    async def show(request: Request) -> Response:
        language = T.accepted(request.headers.get("accept-language", ""))
        say = {name: T.word(text, language) for name, text in
               (("title", T.COMPUTER_TITLE), ("ask", T.TYPE_CODE), ("go", T.CONTINUE))}
        data = json.dumps({"path": CODE_PATH, "base": PATH, "t": {"wrong": T.word(T.WRONG_CODE, language)}})
        body = (f"<main><h1>{say['title']}</h1><form id=form><label for=code>{say['ask']}</label>"
                "<input id=code name=code autocomplete=off autocapitalize=characters spellcheck=false maxlength=32 "
                f"required><button type=submit>{say['go']}</button></form><p id=state role=alert></p></main>")
        return page(hub, "", say["title"], "light", _CSS, body, _SCRIPT % {"data": data.replace("<", "\\u003c")},
                    ancestors="'none'", viewport=True, language=language)

    async def code(request: Request) -> Response:
        data = await json_body(request, ("code",))
        if data is None:
            return refused(400, "malformed body")
        language = T.accepted(request.headers.get("accept-language", ""))
        if not from_engine_frame(request, hub.config.public_url):
            return answer(HandoffRefusal.FOREIGN_ORIGIN.value, language, client_address(request))
        address = client_address(request)
        wait_s = attempts.wait_s(address)
        if wait_s:
            return answer(TOO_MANY, language, address)
        typed = read_code(data["code"])
        if typed is None:
            return answer(WRONG_CODE, language, address)
        try:
            noted = await hub.store.notes.noted(NOTE, note_name(typed), hub.clock.now_ms())
        except Exception as error:  # the store's outage: no link (one log line)
            log.warning("continue-on-computer code not readable (%s)", type(error).__name__)
            return refused(503, "the session store cannot be reached")
        session, _, digest = (noted or b"").decode().partition("\n")
        model = await hub.peek(session) if session else None
        if model is None:
            return answer(WRONG_CODE, language, address)
        why = _refusal(model, digest, hub.clock.now_ms())
        link = _found_link(model, session, typed) if why is None else None
        if link is None:
            return answer(why or WRONG_CODE, T.language_of(model), address)
        return JSONResponse({"link": link}, headers={"Cache-Control": "no-store"})

    return [Route(PATH, show, methods=["GET"]), Route(CODE_PATH, code, methods=["POST"])]
