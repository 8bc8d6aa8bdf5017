"""The demo Farcaster client (issue 33), served by the local relay at /client: what a phone's
Farcaster app does, for one browser. It takes a `farcaster://connect?...` URL (pasted, or picked
from the relay's open channels), writes the FIP-11 sign-in message for a dev FID (statement
"Farcaster Auth", chain id 10, the channel's nonce, domain and siweUri, resource
`farcaster://fid/N`), signs it with the FID's custody key (Hardhat dev accounts 1..3, registered
as FIDs 1..3 on the dev chains) and answers the channel.

- ``GET /client``: the page; ``GET /client/channels``: the open, unanswered channels' URLs.
- ``POST /client/approve`` {url, fid[, forge]} → 201 {fid, message} once the channel is answered;
  ``forge: "custody"`` (the page's ``?forge=custody``) answers with another dev FID's custody
  address beside the genuine signature: a forged answer the engine must refuse.
- ``GET /client/pfp/{fid}.svg``: the dev FIDs' avatars."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from eth_account import Account
from eth_account.messages import encode_defunct
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from modalcore.siwx.domain.grammar import SiwxMessageError
from modalcore.siwx.domain.message import SiwxMessage, timestamp_ms
from modalcore.farcaster.bodies import json_body

if TYPE_CHECKING:
    from modalcore_dev.farcaster.relay import Channels

STATEMENT = "Farcaster Auth"
CHAIN_ID = 10
MAX_URL = 4096


@dataclass(frozen=True)
class DevFid:
    fid: int
    key: str  # Hardhat's published dev keys: never use them anywhere real
    username: str
    display_name: str
    color: str


DEV_FIDS = (
    DevFid(1, "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "bob", "Bob Farcaster", "#8a63d2"),
    DevFid(2, "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a", "carol", "Carol Caster", "#d2638a"),
    DevFid(3, "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6", "dave", "Dave Dev", "#63a4d2"),
)


def connect_params(url: str) -> dict[str, str] | None:
    """The query of a farcaster://connect URL, or None."""
    if len(url) > MAX_URL:
        return None
    parts = urlsplit(url)
    if (parts.scheme, parts.netloc) != ("farcaster", "connect"):
        return None
    query = {k: v[0] for k, v in parse_qs(parts.query).items() if v}
    return query if all(query.get(k) for k in ("channelToken", "nonce", "siweUri", "domain")) else None


def sign_in_message(params: dict[str, str], dev: DevFid, now_ms: int) -> tuple[str, str]:
    """The message a Farcaster client writes for the channel, and its custody signature."""
    account = Account.from_key(dev.key)
    expiry = params.get("expirationTime")
    message = SiwxMessage.create(
        domain=params["domain"], address=account.address, uri=params["siweUri"], chain_id=CHAIN_ID,
        nonce=params["nonce"], now_ms=now_ms, statement=STATEMENT,
        ttl_ms=None if expiry is None else max(timestamp_ms(expiry) - now_ms, 0),
        request_id=params.get("requestId"), resources=[f"farcaster://fid/{dev.fid}"])
    text = message.to_text()
    signature = Account.sign_message(encode_defunct(text=text), dev.key).signature.hex()
    return text, signature if signature.startswith("0x") else "0x" + signature


def _forged(dev: DevFid) -> str:
    """Another dev FID's custody key: its address is what a forged answer names."""
    return next(other.key for other in DEV_FIDS if other.fid != dev.fid)


def _avatar(dev: DevFid) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" '
            f'rx="32" fill="{dev.color}"/><text x="32" y="42" font-size="28" text-anchor="middle" '
            f'fill="#fff" font-family="sans-serif">{dev.username[0].upper()}</text></svg>')


PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Demo Farcaster client</title>
<style>body{font-family:sans-serif;max-width:640px;margin:24px auto;padding:0 12px}
textarea{width:100%%;height:80px}button{margin:4px 4px 4px 0;padding:8px 12px}li{margin:6px 0;word-break:break-all}</style>
</head><body><h1>Demo Farcaster client</h1>
<p>Approves a <code>farcaster://connect</code> sign-in as a dev FID (dev chain ID registry).</p>
<h2>Open channels</h2><ul id="channels"></ul>
<label for="url">Sign-in URL</label><textarea id="url" placeholder="farcaster://connect?channelToken=..."></textarea>
<div>%s</div><p id="result" role="status"></p>
<script>
async function refresh(){const r=await fetch('/client/channels');const list=document.getElementById('channels');
list.innerHTML='';for(const url of (await r.json()).channels){const li=document.createElement('li');
const b=document.createElement('button');b.textContent='Use';b.onclick=()=>{document.getElementById('url').value=url};
li.append(b,url);list.append(li)}}
async function approve(fid){const url=document.getElementById('url').value.trim();
const r=await fetch('/client/approve',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({url,fid,forge:new URLSearchParams(location.search).get('forge')||undefined})});
const body=await r.json();document.getElementById('result').textContent=r.ok?'Approved as FID '+fid:'Refused: '+body.error;refresh()}
refresh();setInterval(refresh,2000);
</script></body></html>"""


def client_routes(channels: Channels, clock: Callable[[], int] | None = None) -> list[Route]:
    now = clock or (lambda: time.time_ns() // 1_000_000)
    by_fid = {dev.fid: dev for dev in DEV_FIDS}

    async def page(request: Request) -> Response:
        buttons = "".join(f'<button id="approve-{d.fid}" onclick="approve({d.fid})">Approve as @{d.username} '
                          f'(FID {d.fid})</button>' for d in DEV_FIDS)
        return HTMLResponse(PAGE % buttons)

    async def open_channels(request: Request) -> Response:
        return JSONResponse({"channels": channels.pending_urls()})

    async def approve(request: Request) -> Response:
        data = await json_body(request)
        url, fid, forge = (data or {}).get("url"), (data or {}).get("fid"), (data or {}).get("forge")
        params = connect_params(url) if isinstance(url, str) else None
        dev = by_fid.get(fid) if isinstance(fid, int) else None
        if params is None or dev is None or forge not in (None, "custody"):
            return JSONResponse({"error": "a farcaster://connect URL and a dev FID are required"}, status_code=400)
        try:
            text, signature = sign_in_message(params, dev, now())
        except SiwxMessageError as error:
            return JSONResponse({"error": f"the URL's {error.field or 'fields'} cannot make a message"},
                                status_code=400)
        base = f"{request.url.scheme}://{request.url.netloc}"
        answer = {"message": text, "signature": signature, "fid": dev.fid, "username": dev.username,
                  "displayName": dev.display_name, "bio": "", "pfpUrl": f"{base}/client/pfp/{dev.fid}.svg",
                  "custody": Account.from_key(_forged(dev) if forge else dev.key).address, "verifications": []}
        if channels.answer(params["channelToken"], answer) is None:
            return JSONResponse({"error": "the channel is unknown, expired or answered"}, status_code=409)
        return JSONResponse({"fid": dev.fid, "message": text}, status_code=201)

    async def avatar(request: Request) -> Response:
        dev = by_fid.get(int(request.path_params["fid"]))
        if dev is None:
            return Response(status_code=404)
        return Response(_avatar(dev), media_type="image/svg+xml")

    return [Route("/client", page), Route("/client/channels", open_channels),
            Route("/client/approve", approve, methods=["POST"]), Route("/client/pfp/{fid:int}.svg", avatar)]
