"""The embedded wallet's approval frame, served by the engine's own origin (issue 15 §4, issue 27).

GET  /embedded/approve?session=S&request=E
    The page ApproveTransaction draws in a cross-origin iframe: what is approved, decoded, and
    Approve / Reject (frame_page.py: nonce CSP, frame-ancestors of the project's origins). It
    follows the session's theme (approval_theme.py). It holds no secret: anyone may GET it.

POST /embedded/approve/begin   {session, request, public_key}
    A fresh challenge for this request: `{nonce, digest, registered, verify, who}`. `digest` is
    the SHA-256 of the canonical request, the nonce is the engine's MAC over (session, request,
    time, randomness), valid for the approval's lifetime and used once. `registered` says
    whether the frame's key may approve for the session's identity; if not, the frame verifies
    first (`verify`: "email" or the social provider; verify.py).

POST /embedded/approve   {session, request, approve, nonce, public_key, signature}
    Approve counts only with the signature of a key registered for the session's identity over
    `modalcore-approve\\n{session}\\n{request}\\n{digest}\\n{nonce}\\napprove`: then
    `ApprovalDecided` is delivered and the session's flow signs with the engine-held key. Reject
    needs no key (the host can end a request anyway, by closing the view). Anything else:
    403/404/400, nothing changes.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import secrets
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..embedded.decode import TITLES, describe
from ..embedded.decode_calls import SWAP_FUNCTIONS, UNISWAP_V2_ROUTER, Names, decoded, describe_calls, describe_transaction
from ..flows.social import NAMES
from ..embedded.devicekeys import BadPublicKey, parse_public_key
from ..rules import limits as L
from ..slices.embedded import ApprovalDecided
from .approval_theme import style
from .verify import SOCIAL_SCRIPT, VERIFY_SCRIPT, verify_css
from .verify_farcaster import FARCASTER_SCRIPT
from .frame_page import MAX_ID_CHARS, from_own_frame, gone, json_body, page, refused

if TYPE_CHECKING:
    from ..embedded.service import EmbeddedWallet
    from ..slices.embedded import EmbeddedRequest
    from ..slices.model import Model
    from .hub import Hub

PATH = "/embedded/approve"
NONCE_TTL_MS = L.APPROVAL_TIMEOUT_MS
USED_NONCES = 65_536  # nonces spent recently, per process (a decided request waits no more anyway)
_NONCE_PART = 22


def request_digest(request: EmbeddedRequest) -> str:
    """SHA-256 of the canonical request (method, params JSON text, chain)."""
    canonical = json.dumps([request.method, request.params, request.chain], separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def approval_text(session: str, eid: str, digest: str, nonce: str, approve: bool) -> bytes:
    verdict = "approve" if approve else "reject"
    return f"modalcore-approve\n{session}\n{eid}\n{digest}\n{nonce}\n{verdict}".encode()


def _mac(secret: bytes, session: str, eid: str, at: str, rand: str) -> str:
    text = f"approve-nonce\x00{session}\x00{eid}\x00{at}\x00{rand}".encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()[:32]


def issue_nonce(secret: bytes, session: str, eid: str, now_ms: int) -> str:
    rand = secrets.token_urlsafe(16)
    return f"{now_ms}.{rand}.{_mac(secret, session, eid, str(now_ms), rand)}"


def nonce_ok(secret: bytes, session: str, eid: str, nonce: str, now_ms: int) -> bool:
    parts = nonce.split(".")
    if len(parts) != 3 or not parts[0].isdigit() or len(parts[0]) > 16 or len(parts[1]) != _NONCE_PART:
        return False
    at, rand, mac = parts
    return 0 <= now_ms - int(at) < NONCE_TTL_MS and hmac.compare_digest(mac, _mac(secret, session, eid, at, rand))


async def pending(hub: Hub, session: str, eid: str) -> tuple[Any, Model] | None:
    if not session or not eid or len(session) > MAX_ID_CHARS or len(eid) > MAX_ID_CHARS:
        return None
    runner = await hub.find(session)
    if runner is None:
        return None
    model = runner.session.model
    request = model.embedded.request
    if request is None or request.eid != eid or request.signing or not model.embedded.identity:
        return None
    return runner, model


def verify_kind(model: Model) -> str:
    """How this session's visitor proves it is them inside the frame: "email" or the provider."""
    return model.embedded.identity.partition(":")[0]


_SCRIPT = """
const S = %(data)s;
const state = document.getElementById('state'), approveButton = document.getElementById('approve');
const verify = document.getElementById('verify');
let key = null, challenge = null;
async function ready() {
  key = await deviceKey();
  const r = await post(S.path + '/begin', {session: S.session, request: S.request, public_key: key.spki});
  if (!r.ok) { state.textContent = 'This request is no longer waiting'; return; }
  challenge = r.data;
  verify.hidden = challenge.registered;
  approveButton.disabled = !challenge.registered;
  if (!challenge.registered) showVerify(challenge);
}
async function decide(approve, event) {
  if (!event.isTrusted || !challenge) return;
  for (const b of document.querySelectorAll('.row button')) b.disabled = true;
  state.textContent = approve ? 'Approving…' : 'Rejecting…';
  try {
    const text = ['modalcore-approve', S.session, S.request, challenge.digest, challenge.nonce,
                  approve ? 'approve' : 'reject'].join('\\n');
    const r = await post(S.path, {session: S.session, request: S.request, approve, nonce: challenge.nonce,
                                  public_key: key.spki, signature: await signText(key.pair, text)});
    state.textContent = r.ok ? (approve ? 'Approved' : 'Rejected') : 'This request is no longer waiting';
  } catch (e) { state.textContent = 'Could not reach the wallet'; }
}
approveButton.addEventListener('click', (e) => decide(true, e));
document.getElementById('reject').addEventListener('click', (e) => decide(false, e));
%(verify)s
ready().catch(() => { state.textContent = 'This browser cannot hold a wallet key'; });
"""


def engine_names(model: Model) -> Names:
    """The contracts of the transactions the engine itself built: the swap's router (named
    Uniswap V2 Router when its call is one of that router's swaps)."""
    swap = model.swap.pending.swap if model.swap.pending else model.swap.quote.swap if model.swap.quote else None
    tx = dict(swap or ())
    router = tx.get("to", "")
    if not router:
        return {}
    found = decoded(tx.get("data", ""))
    return {router.lower(): UNISWAP_V2_ROUTER if found and found[0] in SWAP_FUNCTIONS else "Swap router"}


def _page_body(model: Model, eid: str) -> str:
    request = model.embedded.request
    assert request is not None
    network = model.networks.get(request.chain) if request.chain else None
    title = TITLES.get(request.method, request.method)
    if request.method == "wallet_sendCalls":  # EIP-5792: each call of the one operation (issue 32)
        rows = describe_calls(request.params, network, model.accounts.get("eip155").address or "")
    elif request.method == "eth_sendTransaction":  # decoded as the calls are: tokens, amounts, the router
        title, rows = describe_transaction(request.params, network, engine_names(model))
    else:
        rows = describe(request.method, request.params, network)
    items = "".join(f"<dt>{html.escape(label)}</dt><dd>{html.escape(text)}</dd>" for label, text in rows)
    who = html.escape(model.embedded.user_email or model.embedded.identity)
    # the details scroll; Reject and Approve stay in sight at the frame's foot (approval_theme.py)
    return (f"<main><h1>{html.escape(title)}</h1><div class=who>{who} · {html.escape(model.origin)}</div>"
            f"<dl>{items}</dl></main><div class=actions><div id=verify hidden></div>"
            "<div class=row><button id=reject type=button>Reject</button>"
            "<button id=approve type=button disabled>Approve</button></div><div id=state role=status></div></div>")


def routes(hub: Hub, secret: bytes, wallet: EmbeddedWallet | None) -> list[Route]:
    used: OrderedDict[str, None] = OrderedDict()

    async def show(request: Request) -> Response:
        session = request.query_params.get("session", "")
        eid = request.query_params.get("request", "")
        found = await pending(hub, session, eid)
        if found is None:
            return gone()
        _, model = found
        request_ = model.embedded.request
        assert request_ is not None
        data = json.dumps({"path": PATH, "session": session, "request": eid}).replace("<", "\\u003c")
        mode = "light" if model.theme.mode == "light" else "dark"
        title = html.escape(TITLES.get(request_.method, request_.method))
        return page(hub, model.project_id, title, mode, style(model.theme) + verify_css(),
                    _page_body(model, eid), _SCRIPT % {"data": data, "verify": SOCIAL_SCRIPT + FARCASTER_SCRIPT + VERIFY_SCRIPT})

    async def begin(request: Request) -> Response:
        data = await json_body(request, ("session", "request", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        try:
            key_id, _ = parse_public_key(data["public_key"])
        except BadPublicKey:
            return refused(400, "not a public key")
        found = await pending(hub, data["session"], data["request"])
        if found is None:
            return refused(404, "this request is no longer waiting")
        _, model = found
        assert model.embedded.request is not None
        identity = model.embedded.identity
        registered = wallet is not None and wallet.devices.public_key(identity, key_id) is not None
        return JSONResponse({"nonce": issue_nonce(secret, data["session"], data["request"], hub.clock.now_ms()),
                             "digest": request_digest(model.embedded.request), "registered": registered,
                             "verify": verify_kind(model), "provider": NAMES.get(verify_kind(model), ""),
                             "who": model.embedded.user_email})

    async def decide(request: Request) -> Response:
        data = await json_body(request, ("session", "request", "nonce", "public_key", "signature"))
        if data is None or not isinstance(data.get("approve"), bool):
            return refused(400, "malformed body")
        session, eid, nonce, approve = data["session"], data["request"], data["nonce"], data["approve"]
        if not approve and not from_own_frame(request):
            return refused(403, "only the approval frame may decide")
        now = hub.clock.now_ms()
        if not nonce_ok(secret, session, eid, nonce, now) or nonce in used:
            return refused(403, "not a challenge of this request")
        found = await pending(hub, session, eid)
        if found is None:
            return refused(404, "this request is no longer waiting")
        runner, model = found
        assert model.embedded.request is not None
        if approve:
            try:
                key_id, _ = parse_public_key(data["public_key"])
            except BadPublicKey:
                return refused(403, "not a key of this wallet")
            text = approval_text(session, eid, request_digest(model.embedded.request), nonce, True)
            if wallet is None or not wallet.devices.verify(model.embedded.identity, key_id, text, data["signature"]):
                return refused(403, "not a key of this wallet")
        used[nonce] = None
        while len(used) > USED_NONCES:
            used.popitem(last=False)
        runner.deliver(ApprovalDecided(eid=eid, approve=approve))
        return JSONResponse({"ok": True})

    return [Route(PATH, show, methods=["GET"]), Route(PATH + "/begin", begin, methods=["POST"]),
            Route(PATH, decide, methods=["POST"])]
