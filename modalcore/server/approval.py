"""The embedded wallet's approval frame, served by the engine's own origin (issue 15 §4).

GET  /embedded/approve?session=S&request=E
    The page ApproveTransaction draws in a cross-origin iframe: what is approved, decoded, and
    Approve / Reject. `Content-Security-Policy: frame-ancestors` lists the project's allowed
    origins, so no other site can frame it; its only script carries a per-response nonce. It
    follows the session's theme, light or dark and the theme variables (approval_theme.py). It
    posts its own height (`{modalcore: 'frame-height', height}`) to the page around it, so the
    modal fits the frame to what it shows.
    The page holds a one-time token (HMAC of the engine secret over S, E and a nonce): a script
    of the host page cannot read it (cross-origin, no CORS), nor click or type inside the frame.

POST /embedded/approve   {session, request, token, approve}
    Accepted only from the engine's own origin (`Origin` equal to this engine's, and
    `Sec-Fetch-Site: same-origin` when the browser sends it), with a valid token for that very
    request, while the session still waits for it: then `ApprovalDecided` is delivered to the
    session, whose flow signs with the engine-held key. Anything else: 403/404/400, and nothing
    changes.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import secrets
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..embedded.decode import TITLES, describe
from ..rules import limits as L
from ..slices.embedded import ApprovalDecided
from .approval_theme import style
from .origins import DEFAULT_ALLOWED_ANCESTORS

if TYPE_CHECKING:
    from ..slices.model import Model
    from .hub import Hub

PATH = "/embedded/approve"
MAX_BODY_BYTES = L.APPROVAL_BODY_BYTES
MAX_ID_CHARS = L.APPROVAL_ID_CHARS


def _token_mac(secret: bytes, session: str, request: str, nonce: str) -> str:
    text = f"approve\x00{session}\x00{request}\x00{nonce}".encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()


def issue_token(secret: bytes, session: str, request: str) -> str:
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_token_mac(secret, session, request, nonce)}"


def token_ok(secret: bytes, session: str, request: str, token: str) -> bool:
    nonce, _, mac = token.partition(".")
    return bool(nonce) and hmac.compare_digest(mac, _token_mac(secret, session, request, nonce))


def frame_ancestors(hub: Hub, project_id: str) -> str:
    project = hub.config.projects.get(project_id)
    patterns = list(project.origins) if project else []
    if project is None or project.default_origins:
        patterns += list(DEFAULT_ALLOWED_ANCESTORS)
    return " ".join(dict.fromkeys(patterns)) or "'none'"


def own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


async def _pending(hub: Hub, session: str, eid: str) -> tuple[Any, Model] | None:
    if not session or not eid or len(session) > MAX_ID_CHARS or len(eid) > MAX_ID_CHARS:
        return None
    runner = await hub.find(session)
    if runner is None:
        return None
    model = runner.session.model
    pending = model.embedded.request
    if pending is None or pending.eid != eid or pending.signing or not model.embedded.identity:
        return None
    return runner, model


_SCRIPT = """
const state = document.getElementById('state');
function decide(approve, event) {
  if (!event.isTrusted) return;
  for (const b of document.querySelectorAll('button')) b.disabled = true;
  state.textContent = approve ? 'Approving…' : 'Rejecting…';
  fetch('%(path)s', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({session: %(session)s, request: %(request)s, token: %(token)s, approve})})
    .then((r) => { state.textContent = r.ok ? (approve ? 'Approved' : 'Rejected') : 'This request is no longer waiting'; })
    .catch(() => { state.textContent = 'Could not reach the wallet'; });
}
document.getElementById('approve').addEventListener('click', (e) => decide(true, e));
document.getElementById('reject').addEventListener('click', (e) => decide(false, e));
// the page's height to the modal around it, which fits the frame to it (within the frame node's
// height): only a number leaves the frame
const fit = () => parent.postMessage({modalcore: 'frame-height',
  height: Math.ceil(document.documentElement.getBoundingClientRect().height)}, '*');
new ResizeObserver(fit).observe(document.documentElement);
"""

def _page(model: Model, session: str, eid: str, token: str, nonce: str) -> str:
    pending = model.embedded.request
    assert pending is not None
    network = model.networks.get(pending.chain) if pending.chain else None
    rows = describe(pending.method, pending.params, network)
    items = "".join(f"<dt>{html.escape(label)}</dt><dd>{html.escape(text)}</dd>" for label, text in rows)
    who = html.escape(model.embedded.user_email or model.embedded.identity)
    script = _SCRIPT % {"path": PATH, "session": json.dumps(session), "request": json.dumps(eid),
                        "token": json.dumps(token)}
    title = html.escape(TITLES.get(pending.method, pending.method))
    mode = "light" if model.theme.mode == "light" else "dark"
    return (f"<!doctype html><html data-theme={mode}><head><meta charset=utf-8><title>{title}</title>"
            f"<style nonce=\"{nonce}\">{style(model.theme)}</style></head><body>"
            f"<h1>{title}</h1><div class=who>{who} · {html.escape(model.origin)}</div><dl>{items}</dl>"
            "<div class=row><button id=reject type=button>Reject</button>"
            "<button id=approve type=button>Approve</button></div><div id=state role=status></div>"
            f"<script nonce=\"{nonce}\">{script}</script></body></html>")


def _refused(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def routes(hub: Hub, secret: bytes) -> list[Route]:
    async def page(request: Request) -> Response:
        session = request.query_params.get("session", "")
        eid = request.query_params.get("request", "")
        found = await _pending(hub, session, eid)
        if found is None:
            return HTMLResponse("<!doctype html><p>This request is no longer waiting.</p>", status_code=404,
                                headers={"Content-Security-Policy": "frame-ancestors *; default-src 'none'"})
        _, model = found
        nonce = secrets.token_urlsafe(16)
        csp = (f"frame-ancestors {frame_ancestors(hub, model.project_id)}; default-src 'none'; "
               f"script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
               "base-uri 'none'; form-action 'none'")
        body = _page(model, session, eid, issue_token(secret, session, eid), nonce)
        return HTMLResponse(body, headers={"Content-Security-Policy": csp, "Cache-Control": "no-store",
                                           "X-Content-Type-Options": "nosniff",
                                           "Referrer-Policy": "no-referrer"})

    async def decide(request: Request) -> Response:
        if request.headers.get("origin") != own_origin(request):
            return _refused(403, "only the approval frame may decide")
        site = request.headers.get("sec-fetch-site")
        if site is not None and site != "same-origin":
            return _refused(403, "only the approval frame may decide")
        raw = await request.body()
        if len(raw) > MAX_BODY_BYTES:
            return _refused(400, "body too large")
        try:
            data = json.loads(raw)
        except ValueError:
            return _refused(400, "malformed body")
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("session", "request", "token")) \
                or not isinstance(data.get("approve"), bool):
            return _refused(400, "malformed body")
        session, eid = data["session"], data["request"]
        if not token_ok(secret, session, eid, data["token"]):
            return _refused(403, "not this request's frame")
        found = await _pending(hub, session, eid)
        if found is None:
            return _refused(404, "this request is no longer waiting")
        runner, _ = found
        runner.deliver(ApprovalDecided(eid=eid, approve=data["approve"]))
        return JSONResponse({"ok": True})

    return [Route(PATH, page, methods=["GET"]), Route(PATH, decide, methods=["POST"])]
