"""Sign in with Farcaster inside the engine-origin frame (issue 33 with issue 27): the way a
browser's frame key becomes one that may approve for `farcaster:<fid>`, as the code does for an
email and the provider's popup for the other socials.

GET  /embedded/farcaster?session=S&attempt=N
    ConnectingFarcaster's frame: it opens the channel for its key and draws the URL inside
    itself (QR code on desktops, Open Farcaster link on phones).
POST /embedded/farcaster/channel   {session, attempt, public_key}
    While the session shows ConnectingFarcaster with no channel open for that attempt: a relay
    channel opened for the frame's key, delivered to the session (`FarcasterChannelOpened`,
    which polls it); `{url, qr}`. The verified answer registers that key for the FID
    (farcaster/service.py) and connects the session. When the host requires sign-in, the
    channel carries the SIWX message's domain, URI and nonce (flows/farcaster_siwx.py), and
    the verified answer also signs the session in (farcaster/one_approval.py).
POST /embedded/verify/farcaster   {session, public_key}
    The approval frame of a browser without a registered key for the session's Farcaster
    identity: a channel opened for the frame's key, `{channel, url, qr}` (`channel`: its token).
POST /embedded/verify/farcaster/status   {session, channel, public_key}
    `{state: pending | expired | refused | verified}`: that channel's answer, verified as on
    Connect (message, custody signature, ID registry); only an answer by the session's own FID
    registers the key the channel was opened for.

`qr` is the URL as an SVG QR code, drawn inside the frame. What the host can do: open a channel
for a key of its own and show its QR (phishing, as a fake code field is: the genuine QR is drawn
in the engine-origin frame); open ConnectingFarcaster's channel before the frame does (the
frame is then refused and says so: the visitor sees no QR code to scan). What it cannot: bind
another key to a channel (the key is fixed when the channel opens), or register a key without
the custody signature of a registered FID. Every POST must come from an engine-origin document
(issue 38, frame_page.from_engine_frame): a host page on another origin of the same site is
refused; the host's server, which can forge those headers, still holds only the phishing above.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..embedded.devicekeys import BadPublicKey, parse_public_key
from ..farcaster.one_approval import SignInBinding
from ..flows.farcaster import awaiting_frame
from ..flows.farcaster_siwx import binding
from ..core.cmds import Failure
from ..core.services import ServiceError
from ..slices.farcaster import ChannelOpened, FarcasterChannelOpened
from ..walletconnect.domain.qr import qr_matrix
from .approval_theme import style
from .frame_page import MAX_ID_CHARS, from_engine_frame, gone, json_body, page, refused

if TYPE_CHECKING:
    from ..embedded.service import EmbeddedWallet
    from .hub import Hub

log = logging.getLogger(__name__)
PATH = "/embedded/verify/farcaster"
SIGNIN_PATH = "/embedded/farcaster"
OPEN_CHANNELS = 1024  # channels opened for frames, waiting for their answer (the oldest dropped)


@dataclass(frozen=True)
class Pending:
    session: str
    identity: str
    key: str  # the frame's public key (SPKI, base64url) the channel was opened for
    nonce: str


def qr_svg(text: str) -> str:
    """`text` as a QR code in SVG (one path, 4 modules of quiet zone)."""
    matrix = qr_matrix(text, border=4)
    size = len(matrix)
    cells = "".join(f"M{x} {y}h1v1h-1z" for y, row in enumerate(matrix) for x, dark in enumerate(row) if dark)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="200" height="200" '
            f'shape-rendering="crispEdges" role="img" aria-label="Farcaster QR code">'
            f'<rect width="{size}" height="{size}" fill="#fff"/><path fill="#000" d="{cells}"/></svg>')


def farcaster_fid(identity: str) -> int | None:
    kind, _, fid = identity.partition(":")
    return int(fid) if kind == "farcaster" and fid.isdigit() else None


# the approval frame's part for a Farcaster identity whose browser has no registered key
FARCASTER_SCRIPT = """
async function farcasterVerify(msg) {
  const box = el('div', {id: 'farcaster-verify'});
  const r = await post('/embedded/verify/farcaster', {session: S.session, public_key: key.spki});
  if (!r.ok) { msg.textContent = 'Farcaster could not be reached. Try again'; return box; }
  const qr = el('div', {id: 'farcaster-qr'}); qr.innerHTML = r.data.qr;
  const open = el('a', {id: 'farcaster-open', href: r.data.url, target: '_top', textContent: 'Open Farcaster'});
  msg.textContent = 'Scan with Farcaster to verify it is you';
  box.append(qr, open);
  const poll = async () => {
    const s = await post('/embedded/verify/farcaster/status', {session: S.session, channel: r.data.channel, public_key: key.spki});
    const state = s.ok ? s.data.state : 'failed';
    if (state === 'pending') { setTimeout(poll, 1000); return; }
    if (state === 'verified') { box.remove(); await ready(); return; }
    if (state === 'expired') { box.replaceWith(await farcasterVerify(msg)); return; }
    msg.textContent = 'The Farcaster sign-in could not be verified';
  };
  setTimeout(poll, 1000);
  return box;
}
"""


SIGNIN_SCRIPT = """
const S = %(data)s;
const box = document.getElementById('farcaster'), state = document.getElementById('state');
// the channel is opened for this browser's key; where the frame has no storage and no key window
// is open, a press opens that window first (docs/features/embedded-wallet.md "Cross-site hosting")
async function start() {
  const key = await deviceKey('look');
  const r = await post(S.path, {session: S.session, attempt: S.attempt, public_key: key.spki});
  if (!r.ok) { state.textContent = r.status === 409 ? 'This sign-in is no longer waiting' : 'Farcaster could not be reached'; return; }
  if (S.mobile) {
    box.append(Object.assign(document.createElement('a'), {id: 'farcaster-open', href: r.data.url, target: '_top',
                                                           className: 'open', textContent: 'Open Farcaster'}));
  } else {
    const qr = Object.assign(document.createElement('div'), {id: 'farcaster-qr'}); qr.innerHTML = r.data.qr;
    // the link the QR holds, for a Farcaster client on this computer (issue 39 item 9; AppKit's Copy link)
    const copy = Object.assign(document.createElement('button'), {id: 'farcaster-copy', type: 'button',
                                                                  className: 'copy', textContent: 'Copy link'});
    copy.onclick = () => navigator.clipboard.writeText(r.data.url).then(
      () => { state.textContent = 'Link copied'; }, () => { state.textContent = 'Failed to copy'; });
    box.append(qr, copy);
  }
}
const cannot = () => { state.textContent = 'This browser cannot hold a wallet key'; };
start().catch((e) => { if (e instanceof KeyBlocked) offerKeyWindow(() => start().catch(cannot)); else cannot(); });
"""
# the approval frame's palette (approval_theme.py: #approve, #reject), not Farcaster's own purple
SIGNIN_CSS = ("#farcaster{display:flex;flex-direction:column;align-items:center;gap:8px}"
              "#farcaster-qr svg{width:232px;height:232px;border-radius:calc(var(--rm) * 4)}"
              ".open{display:block;padding:12px 16px;text-align:center;border-radius:calc(var(--rm) * 3);"
              "background:color-mix(in srgb,var(--accent) 74%,#000);color:#fff;text-decoration:none}"
              ".copy{padding:8px 14px;border:0;border-radius:calc(var(--rm) * 3);font:inherit;cursor:pointer;"
              "background:var(--soft);color:var(--fg)}#state:empty{display:none}")


def routes(hub: Hub, wallet: EmbeddedWallet | None) -> list[Route]:
    pending: OrderedDict[str, Pending] = OrderedDict()

    async def signin_page(request: Request) -> Response:
        session = request.query_params.get("session", "")
        model = await hub.peek(session) if session and len(session) <= MAX_ID_CHARS else None
        if model is None or wallet is None or wallet.farcaster is None:
            return gone("This sign-in is no longer waiting.")
        attempt = request.query_params.get("attempt", "")
        data = json.dumps({"path": SIGNIN_PATH + "/channel", "session": session, "attempt": attempt,
                           "mobile": model.env.mobile}).replace("<", "\\u003c")
        mode = "light" if model.theme.mode == "light" else "dark"
        return page(hub, model.project_id, "Sign in with Farcaster", mode, style(model.theme) + SIGNIN_CSS,
                    "<div id=farcaster></div><p id=state role=status></p>", SIGNIN_SCRIPT % {"data": data})

    async def open_for_frame(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may open a channel")
        data = await json_body(request, ("session", "attempt", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        session = data["session"]
        # the session as its owner holds it: the frame's host may not hold its socket (issue 42)
        model = await hub.peek(session) if len(session) <= MAX_ID_CHARS else None
        if model is None or wallet is None or wallet.farcaster is None \
                or str(awaiting_frame(model)) != data["attempt"]:
            return refused(409, "this sign-in is no longer waiting")
        bound = binding(model)  # the host requires sign-in: the approval covers it
        sign_in = SignInBinding(session, *bound) if bound is not None else None
        try:
            parse_public_key(data["public_key"])
            channel = await wallet.farcaster.open_channel(hub.clock.now_ms(), key=data["public_key"], binding=sign_in)
            opened = ChannelOpened(channel_token=channel["channel_token"], url=channel["url"], nonce=channel["nonce"],
                                   public_key=data["public_key"])
        except BadPublicKey:
            return refused(400, "not a public key")
        except (ServiceError, ValueError) as error:
            log.warning("farcaster channel not opened: %s", error)
            await hub.route(session, FarcasterChannelOpened(key=data["attempt"],
                                                            failure=Failure("upstream", "unreachable")))
            return refused(503, "Farcaster cannot be reached")
        await hub.route(session, FarcasterChannelOpened(key=data["attempt"], result=opened))
        return JSONResponse({"url": opened.url, "qr": qr_svg(opened.url)})

    async def identity_of(session: str) -> str | None:
        if not session or len(session) > MAX_ID_CHARS:
            return None
        model = await hub.peek(session)
        identity = model.embedded.identity if model is not None else ""
        return identity if farcaster_fid(identity) is not None else None

    async def start(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may open a channel")
        data = await json_body(request, ("session", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        identity = await identity_of(data["session"])
        if identity is None or wallet is None or wallet.farcaster is None:
            return refused(404, "no Farcaster sign-in to verify")
        try:
            parse_public_key(data["public_key"])
            channel = await wallet.farcaster.open_channel(hub.clock.now_ms())
        except BadPublicKey:
            return refused(400, "not a public key")
        except ServiceError as error:
            log.warning("farcaster verification not started: %s", error)
            return refused(503, "Farcaster cannot be reached")
        token = channel["channel_token"]
        pending[token] = Pending(data["session"], identity, data["public_key"], channel["nonce"])
        while len(pending) > OPEN_CHANNELS:
            pending.popitem(last=False)
        return JSONResponse({"channel": token, "url": channel["url"], "qr": qr_svg(channel["url"])})

    async def status(request: Request) -> Response:
        if not from_engine_frame(request, hub.config.public_url):
            return refused(403, "only the engine's own frame may verify")
        data = await json_body(request, ("session", "channel", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        waiting = pending.get(data["channel"])
        if (waiting is None or wallet is None or wallet.farcaster is None
                or (waiting.session, waiting.key) != (data["session"], data["public_key"])
                or await identity_of(waiting.session) != waiting.identity):
            return refused(404, "no Farcaster sign-in to verify")
        now = hub.clock.now_ms()
        try:
            verdict = await wallet.farcaster.status(data["channel"], waiting.nonce, now)
        except ServiceError as error:
            log.warning("farcaster verification not read: %s", error)
            return refused(503, "Farcaster cannot be reached")
        state = str(verdict.get("state"))
        if state == "pending":
            return JSONResponse({"state": state})
        del pending[data["channel"]]
        if state == "verified" and verdict.get("fid") != farcaster_fid(waiting.identity):
            log.warning("farcaster verification refused: another FID answered")
            state = "refused"
        if state == "verified":
            wallet.devices.register(waiting.identity, waiting.key, now)
        return JSONResponse({"state": state})

    return [Route(SIGNIN_PATH, signin_page, methods=["GET"]),
            Route(SIGNIN_PATH + "/channel", open_for_frame, methods=["POST"]),
            Route(PATH, start, methods=["POST"]), Route(PATH + "/status", status, methods=["POST"])]
