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

from ..i18n import direction
from ..rules import limits as L
from .origins import DEFAULT_ALLOWED_ANCESTORS

if TYPE_CHECKING:
    from .hub import Hub

MAX_BODY_BYTES = L.APPROVAL_BODY_BYTES
MAX_ID_CHARS = L.APPROVAL_ID_CHARS

KEY_PATH = "/embedded/key"  # server/key_window.py
KEY_WINDOW_NAME = "modalcore-key"
# what a frame without storage says (docs/features/embedded-wallet.md "Cross-site hosting")
KEY_BLOCKED = ("This browser blocks storage for the wallet frame. Open the key window the wallet offers "
               "(a window of the wallet's own site that keeps this browser's key) and keep it open, "
               "or allow third-party cookies for this site.")
KEY_OPEN = "Open the key window"
KEY_AT_SIGNIN = ("This browser blocks storage for the wallet frame: typing the code opens a window of the "
                 "wallet's own site that keeps this browser's key. Allow it and keep it open.")
KEY_TEXTS = {"path": KEY_PATH, "name": KEY_WINDOW_NAME, "blocked": KEY_BLOCKED, "open": KEY_OPEN,
             "signin": KEY_AT_SIGNIN}

KEY_SCRIPT = """
const post = (path, body) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'},
  body: JSON.stringify(body)}).then(async (r) => ({ok: r.ok, status: r.status, data: await r.json().catch(() => ({}))}));
const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const openDb = (factory) => new Promise((ok, fail) => { let r;
  try { r = factory.open('modalcore-keys', 1); } catch (e) { fail(e); return; }
  r.onupgradeneeded = () => r.result.createObjectStore('keys'); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
const within = (p, ms) => Promise.race([p, new Promise((_, fail) => setTimeout(() => fail(new Error('timeout')), ms))]);
class KeyBlocked extends Error {}
let keyDb = null;
// where this browser's key lives: the frame's own IndexedDB (partitioned by the top-level site
// where the browser partitions), or the unpartitioned one a storage-access grant the browser
// already holds gives; null where the browser blocks storage for a frame of another site
async function keyStore() {
  if (keyDb) return keyDb;
  try { keyDb = await openDb(indexedDB); return keyDb; } catch (e) { /* blocked: below */ }
  try {
    if (document.requestStorageAccess && (await navigator.permissions.query({name: 'storage-access'})).state === 'granted')
      keyDb = await within(document.requestStorageAccess({indexedDB: true}).then((h) => openDb(h.indexedDB)), 3000);
  } catch (e) { keyDb = null; }
  return keyDb;
}
const stored = (db) => new Promise((ok) => {
  const q = db.transaction('keys').objectStore('keys').get('device'); q.onsuccess = () => ok(q.result || null); q.onerror = () => ok(null); });
// the key in `db`: created once, its private half never extractable
async function localKey(db) {
  let pair = await stored(db);
  if (!pair) {
    pair = await crypto.subtle.generateKey({name: 'ECDSA', namedCurve: 'P-256'}, false, ['sign', 'verify']);
    await new Promise((ok, fail) => { const t = db.transaction('keys', 'readwrite');
      t.objectStore('keys').put(pair, 'device'); t.oncomplete = ok; t.onerror = () => fail(t.error); });
  }
  return {pair, spki: b64(await crypto.subtle.exportKey('spki', pair.publicKey))};
}
// without storage: the key window (a top-level window of this origin: first-party storage) keeps
// the key and signs for this origin's documents only; opened by a press, found again by name
let keyWin = null, keyAsked = 0;
function askKeyWindow(win, body) {
  const id = ++keyAsked;
  return new Promise((ok) => {
    const send = () => { try { win.postMessage({modalcore: 'key', id, ...body}, location.origin); } catch (e) { /* loading */ } };
    const on = (e) => { if (e.source === win && e.origin === location.origin && e.data && e.data.modalcore === 'key-reply'
                             && e.data.id === id) done(e.data); };
    const tick = setInterval(send, 200), stop = setTimeout(() => done(null), 10000);
    const done = (v) => { clearInterval(tick); clearTimeout(stop); removeEventListener('message', on); ok(v); };
    addEventListener('message', on); send();
  });
}
// a window of this origin this frame holds (the social sign-in's, opened by the press): shown
// the key window's page, it keeps the key (first-party storage) for this sign-in and after it
async function keyIn(win) {
  try { win.location = KEY_TEXT.path; } catch (e) { return null; }
  const r = await askKeyWindow(win, {op: 'key'});
  if (!r || typeof r.spki !== 'string') return null;
  keyWin = win;
  return {pair: {remote: win}, spki: r.spki};
}
async function windowKey(press) {
  if (!keyWin || keyWin.closed) {
    keyWin = null;
    let win = null;
    try { win = window.open('', KEY_TEXT.name, press ? 'popup,width=440,height=360' : ''); } catch (e) { win = null; }
    if (win) {
      let path = null;
      try { path = win.location.pathname; } catch (e) { /* another origin's page now */ }
      if (path === KEY_TEXT.path) keyWin = win;
      else if (press) { win.location = KEY_TEXT.path; keyWin = win; }
      else if (path === 'blank') { win.name = ''; win.close(); }  // the lookup made it (unnamed: a later press makes its own)
    }
  }
  if (!keyWin) return null;
  const r = await askKeyWindow(keyWin, {op: 'key'});
  return r && typeof r.spki === 'string' ? {pair: {remote: keyWin}, spki: r.spki} : null;
}
// this browser's key for the engine: {pair, spki}. Without storage, `window`: 'open' (called in
// a press, a user gesture: may open the key window), 'look' (finds an open one by name; where
// none is, a browser's pop-up blocker refuses the lookup) or nothing (storage only); KeyBlocked
// where no key is to be had that way
async function deviceKey(window_) {
  const db = await keyStore();
  if (db) return localKey(db);
  const key = window_ === 'open' || window_ === 'look' ? await windowKey(window_ === 'open') : null;
  if (!key) throw new KeyBlocked(KEY_TEXT.blocked);
  return key;
}
async function signText(pair, text) {
  if (pair.remote) {
    const r = await askKeyWindow(pair.remote, {op: 'sign', text});
    if (!r || typeof r.signature !== 'string') throw new KeyBlocked(KEY_TEXT.blocked);
    return r.signature;
  }
  return b64(await crypto.subtle.sign({name: 'ECDSA', hash: 'SHA-256'}, pair.privateKey, new TextEncoder().encode(text)));
}
// said in words, never silently nothing: why this frame cannot sign, and the press that fixes it
function keyNote(text) {
  let note = document.getElementById('keystate');
  if (!note) {
    note = Object.assign(document.createElement('p'), {id: 'keystate'}); note.setAttribute('role', 'status');
    const place = document.querySelector('.actions'); if (place) place.prepend(note); else document.body.append(note);
  }
  note.textContent = typeof text === 'string' ? text : KEY_TEXT.blocked;
}
function offerKeyWindow(then) {
  keyNote(KEY_TEXT.blocked);
  let go = document.getElementById('keywin');
  if (!go) {
    go = Object.assign(document.createElement('button'), {id: 'keywin', type: 'button', textContent: KEY_TEXT.open});
    document.getElementById('keystate').after(go);
  }
  go.onclick = async (e) => {
    if (!e.isTrusted) return;
    try { await deviceKey('open'); } catch (err) { keyNote(KEY_TEXT.blocked); return; }
    go.remove(); keyNote('');
    await then();
  };
}
// the page's height to the modal around it, which fits the frame to it: only a number leaves
const fit = () => parent.postMessage({modalcore: 'frame-height',
  height: Math.ceil(document.documentElement.getBoundingClientRect().height)}, '*');
new ResizeObserver(fit).observe(document.documentElement);
"""

KEY_TEXT_JSON = json.dumps(KEY_TEXTS).replace("<", "\\u003c")


def frame_ancestors(hub: Hub, project_id: str) -> str:
    project = hub.config.projects.get(project_id)
    patterns = list(project.origins) if project else []
    if project is None or project.default_origins:
        patterns += list(DEFAULT_ALLOWED_ANCESTORS)
    return " ".join(dict.fromkeys(patterns)) or "'none'"


def signin_ancestors(hub: Hub, project_id: str) -> str:
    """Who may frame a sign-in frame (the email code, a social account, a passkey): the project's
    origins, and the engine's own pages: the linked phone's modal, on the engine's page, draws the
    session's sign-in there (docs/features/continue-on-phone.md, "With no account")."""
    ancestors = frame_ancestors(hub, project_id)
    return "'self'" if ancestors == "'none'" else f"{ancestors} 'self'"


def own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


def gone(text: str = "This request is no longer waiting.") -> HTMLResponse:
    return HTMLResponse(f"<!doctype html><p>{text}</p>", status_code=404,
                        headers={"Content-Security-Policy": "frame-ancestors *; default-src 'none'"})


def page(hub: Hub, project_id: str, title: str, mode: str, css: str, body: str, script: str,
         ancestors: str | None = None, *, viewport: bool = False, language: str = "",
         modal: bool = False) -> HTMLResponse:
    """A frame page: its only style and script carry a per-response nonce; only the project's
    origins may frame it (or `ancestors`: `'none'` for a page shown in a window of its own);
    it talks to its own origin only. `viewport`: a page a phone shows at the top level (handoff.py).
    `language`: the page's words are in it (`lang`, and `dir` for a right-to-left one).
    `modal`: the page loads the modal itself (the linked phone's, server/companion.py): its
    script by this page's nonce, its shadow root's style element and its icons."""
    nonce = secrets.token_urlsafe(16)
    styles = "'self' 'unsafe-inline'; img-src 'self' data: https:; frame-src 'self'" if modal else f"'nonce-{nonce}'"
    csp = (f"frame-ancestors {ancestors or frame_ancestors(hub, project_id)}; default-src 'none'; "
           f"script-src 'nonce-{nonce}'; style-src {styles}; connect-src 'self'; "
           "base-uri 'none'; form-action 'none'")
    meta = "<meta name=viewport content=\"width=device-width,initial-scale=1\">" if viewport else ""
    lang = f" lang={language} dir={direction(language)}" if language else ""
    text = (f"<!doctype html><html data-theme={mode}{lang}><head><meta charset=utf-8><title>{title}</title>{meta}"
            f"<style nonce=\"{nonce}\">{css}</style></head><body>{body}"
            f"<script nonce=\"{nonce}\">const KEY_TEXT = {KEY_TEXT_JSON};{KEY_SCRIPT}{script}</script></body></html>")
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
