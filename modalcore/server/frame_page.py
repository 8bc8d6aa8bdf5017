"""What the engine-origin frames share (issue 27 §1): the page around their content (nonce CSP,
frame-ancestors, no referrer, no cache), a JSON body read with bounds, and the script that
holds this browser's key.

The key is a WebCrypto ECDSA P-256 pair created inside the frame with `extractable: false` and
kept in the frame's own IndexedDB (partitioned by the top-level site): the host page cannot read
it (another origin), and nothing the engine sends in HTML or a URL is a secret. Only the public
half leaves the frame, to be registered after a sign-in completed inside the frame.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse

from ..rules import limits as L
from .origins import DEFAULT_ALLOWED_ANCESTORS

if TYPE_CHECKING:
    from .hub import Hub

MAX_BODY_BYTES = L.APPROVAL_BODY_BYTES
MAX_ID_CHARS = L.APPROVAL_ID_CHARS

KEY_SCRIPT = """
const post = (path, body) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'},
  body: JSON.stringify(body)}).then(async (r) => ({ok: r.ok, status: r.status, data: await r.json().catch(() => ({}))}));
const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const idb = () => new Promise((ok, fail) => { const r = indexedDB.open('modalcore-keys', 1);
  r.onupgradeneeded = () => r.result.createObjectStore('keys'); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
const stored = async () => { const db = await idb(); return new Promise((ok) => {
  const q = db.transaction('keys').objectStore('keys').get('device'); q.onsuccess = () => ok(q.result || null); q.onerror = () => ok(null); }); };
// this browser's key for the engine: created once, its private half never extractable
async function deviceKey() {
  let pair = await stored();
  if (!pair) {
    pair = await crypto.subtle.generateKey({name: 'ECDSA', namedCurve: 'P-256'}, false, ['sign', 'verify']);
    const db = await idb();
    await new Promise((ok, fail) => { const t = db.transaction('keys', 'readwrite');
      t.objectStore('keys').put(pair, 'device'); t.oncomplete = ok; t.onerror = () => fail(t.error); });
  }
  return {pair, spki: b64(await crypto.subtle.exportKey('spki', pair.publicKey))};
}
const signText = async (pair, text) => b64(await crypto.subtle.sign({name: 'ECDSA', hash: 'SHA-256'},
  pair.privateKey, new TextEncoder().encode(text)));
// the page's height to the modal around it, which fits the frame to it: only a number leaves
const fit = () => parent.postMessage({modalcore: 'frame-height',
  height: Math.ceil(document.documentElement.getBoundingClientRect().height)}, '*');
new ResizeObserver(fit).observe(document.documentElement);
"""


def frame_ancestors(hub: Hub, project_id: str) -> str:
    project = hub.config.projects.get(project_id)
    patterns = list(project.origins) if project else []
    if project is None or project.default_origins:
        patterns += list(DEFAULT_ALLOWED_ANCESTORS)
    return " ".join(dict.fromkeys(patterns)) or "'none'"


def own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


def gone(text: str = "This request is no longer waiting.") -> HTMLResponse:
    return HTMLResponse(f"<!doctype html><p>{text}</p>", status_code=404,
                        headers={"Content-Security-Policy": "frame-ancestors *; default-src 'none'"})


def page(hub: Hub, project_id: str, title: str, mode: str, css: str, body: str, script: str,
         ancestors: str | None = None, *, viewport: bool = False) -> HTMLResponse:
    """A frame page: its only style and script carry a per-response nonce; only the project's
    origins may frame it (or `ancestors`: `'none'` for a page shown in a window of its own);
    it talks to its own origin only. `viewport`: a page a phone shows at the top level (handoff.py)."""
    nonce = secrets.token_urlsafe(16)
    csp = (f"frame-ancestors {ancestors or frame_ancestors(hub, project_id)}; default-src 'none'; "
           f"script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
           "base-uri 'none'; form-action 'none'")
    meta = "<meta name=viewport content=\"width=device-width,initial-scale=1\">" if viewport else ""
    text = (f"<!doctype html><html data-theme={mode}><head><meta charset=utf-8><title>{title}</title>{meta}"
            f"<style nonce=\"{nonce}\">{css}</style></head><body>{body}"
            f"<script nonce=\"{nonce}\">{KEY_SCRIPT}{script}</script></body></html>")
    return HTMLResponse(text, headers={"Content-Security-Policy": csp, "Cache-Control": "no-store",
                                       "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"})


def refused(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def from_own_frame(request: Request) -> bool:
    """The browser says the request comes from the engine's own page. A server can forge this,
    so it only keeps other sites' pages out; what authorises is the key or the code."""
    site = request.headers.get("sec-fetch-site")
    return request.headers.get("origin") == own_origin(request) and site in (None, "same-origin")


def from_engine_frame(request: Request, public_url: str = "") -> bool:
    """Sign-in steps and key registrations (issue 38 item 1): the browser says the request comes
    from a document of the engine's own origin: `Sec-Fetch-Site: same-origin` (a host page on
    another origin of the same site gets `same-site`, which SameSite cookies do not tell apart)
    and `Origin`, where sent, the engine's (as the request reached it, or its public URL). A
    server can forge both: what authorises is still the code, the provider's grant that only
    the engine's popup page holds, and the frame's own key and flow value."""
    if request.headers.get("sec-fetch-site") != "same-origin":
        return False
    origin = request.headers.get("origin")
    if origin is None or origin == own_origin(request):
        return True
    public = urlsplit(public_url)
    return bool(public.scheme and public.netloc) and origin == f"{public.scheme}://{public.netloc}"


async def json_body(request: Request, strings: tuple[str, ...]) -> dict[str, Any] | None:
    """The body's object if it is small, JSON, and has each of `strings` as a bounded string."""
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    for name in strings:
        value = data.get(name)
        if not isinstance(value, str) or len(value) > MAX_BODY_BYTES:
            return None
    if any(isinstance(data.get(name), str) and len(data[name]) > MAX_ID_CHARS for name in ("session", "request")):
        return None
    return data
