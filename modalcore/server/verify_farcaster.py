"""A Farcaster identity proves it is them inside the approval frame (issue 33 with issue 27): the
way a browser's frame key becomes one that may approve for `farcaster:<fid>`, as the code does
for an email and the provider's popup for the other socials.

POST /embedded/verify/farcaster   {session, public_key}
    A relay channel opened for this frame's key (the engine's nonce, domain and siweUri, as on
    ConnectingFarcaster): `{token, url, qr}` (`qr`: the URL as an SVG QR code, drawn inside the
    frame; never by the host page).
POST /embedded/verify/farcaster/status   {session, token, public_key}
    `{state: pending | expired | refused | verified}`: the channel's answer, verified as on
    Connect (message, custody signature, ID registry); only an answer by the session's own FID
    registers the key the channel was opened for.

What the host can do: open a channel bound to a key of its own and show its QR (phishing, as a
fake code field is: the genuine QR is drawn in the engine-origin frame). What it cannot: bind
another key to the frame's channel (the key is fixed when the channel opens), or register a
key without the custody signature of the signed-in FID.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..embedded.devicekeys import BadPublicKey, parse_public_key
from ..runtime.services import ServiceError
from ..walletconnect.qr import qr_matrix
from .frame_page import MAX_ID_CHARS, json_body, refused

if TYPE_CHECKING:
    from ..embedded.service import EmbeddedWallet
    from .hub import Hub

log = logging.getLogger(__name__)
PATH = "/embedded/verify/farcaster"
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
    const s = await post('/embedded/verify/farcaster/status', {session: S.session, token: r.data.token, public_key: key.spki});
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


def routes(hub: Hub, wallet: EmbeddedWallet | None) -> list[Route]:
    pending: OrderedDict[str, Pending] = OrderedDict()

    async def identity_of(session: str) -> str | None:
        if not session or len(session) > MAX_ID_CHARS:
            return None
        runner = await hub.find(session)
        identity = runner.session.model.embedded.identity if runner is not None else ""
        return identity if farcaster_fid(identity) is not None else None

    async def start(request: Request) -> Response:
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
        return JSONResponse({"token": token, "url": channel["url"], "qr": qr_svg(channel["url"])})

    async def status(request: Request) -> Response:
        data = await json_body(request, ("session", "token", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        waiting = pending.get(data["token"])
        if (waiting is None or wallet is None or wallet.farcaster is None
                or (waiting.session, waiting.key) != (data["session"], data["public_key"])
                or await identity_of(waiting.session) != waiting.identity):
            return refused(404, "no Farcaster sign-in to verify")
        now = hub.clock.now_ms()
        try:
            verdict = await wallet.farcaster.status(data["token"], waiting.nonce, now)
        except ServiceError as error:
            log.warning("farcaster verification not read: %s", error)
            return refused(503, "Farcaster cannot be reached")
        state = str(verdict.get("state"))
        if state == "pending":
            return JSONResponse({"state": state})
        del pending[data["token"]]
        if state == "verified" and verdict.get("fid") != farcaster_fid(waiting.identity):
            log.warning("farcaster verification refused: another FID answered")
            state = "refused"
        if state == "verified":
            wallet.devices.register(waiting.identity, waiting.key, now)
        return JSONResponse({"state": state})

    return [Route(PATH, start, methods=["POST"]), Route(PATH + "/status", status, methods=["POST"])]
