"""The embedded wallet's approval frame, served by the engine's own origin (issue 15 §4, issue 27).

GET  /embedded/approve?session=S&request=E
    The page ApproveTransaction draws in a cross-origin iframe: what is approved, decoded, and
    Approve / Reject (frame_page.py: nonce CSP, frame-ancestors of the project's origins). It
    follows the session's theme (approval_theme.py). It holds no secret: anyone may GET it.
    A `Referer` naming another site than the session's origin gets a refusal page instead
    (issue 38 §3); the page checks where it is embedded itself and keeps Approve off until it
    has been visibly shown (approval_guard.py). `&popup=1`: the same request in a window of its
    own (framed by nobody), for browsers without IntersectionObserver v2.

POST /embedded/approve/begin   {session, request, public_key}
    A fresh challenge for this request: `{nonce, digest, tree, registered, verify, who}`. `digest`
    is the SHA-256 of the canonical request, `tree` the approval tree's canonical msgpack bytes
    (base64url; embedded/approval_tree.py): the frame draws the approval from those bytes and signs
    their SHA-256. The nonce is the engine's MAC over (session, request,
    time, randomness), valid for the approval's lifetime and used once. `registered` says
    whether the frame's key may approve for the session's identity; if not, the frame verifies
    first (`verify`: "email" or the social provider; verify.py).

POST /embedded/approve   {session, request, approve, nonce, seen, tree_hash, public_key, signature}
    Approve counts only with the signature of a key registered for the session's identity over
    `modalcore-approve\\n{session}\\n{request}\\n{digest}\\n{nonce}\\napprove\\n{seen}\\n{tree_hash}`, where
    `tree_hash` is the SHA-256 of the tree the frame drew, which must be the engine's own tree for
    the request waiting (else a refusal: the screen was not this call); where
    `seen` is what the frame saw ("visible 734 https://dapp.example": shown for 734 ms by that
    site; approval_guard.py), which must name the session's origin and at least 500 ms: then
    `ApprovalDecided` is delivered, carrying that evidence (tree, hash, signature, key) for the
    audit log (audit/derive.py), and the session's flow signs with the engine-held key. Reject
    needs no key (the host can end a request anyway, by closing the view). Anything else:
    403/404/400, nothing changes.
"""

from __future__ import annotations

import asyncio
import base64
import enum
import hashlib
import hmac
import html
import json
import secrets
from collections import OrderedDict
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..embedded.approval_tree import build, encode, engine_names, request_digest, tree_hash
from ..embedded.decode import TITLES
from ..flows.social import NAMES
from ..embedded.devicekeys import BadPublicKey, parse_public_key
from ..rules import limits as L
from ..slices.embedded import ApprovalDecided
from .approval_guard import ELSEWHERE_TEXT, GUARD_CSS, guard_script, parse_seen, referer_origin, refusal, same_origin
from .approval_theme import style
from .approval_script import APPROVAL_SCRIPT, POPUP_SCRIPT
from .approval_tree_script import OUTCOME_CSS, TREE_SCRIPT
from .verify import verify_css
from .verify_script import SOCIAL_SCRIPT, VERIFY_SCRIPT
from .verify_farcaster import FARCASTER_SCRIPT
from .passkey import passkey_evidence, passkey_refusal
from .passkey_script import PASSKEY_SCRIPT
from .frame_page import MAX_ID_CHARS, from_own_frame, gone, json_body, own_origin, page, refused

if TYPE_CHECKING:
    from ..embedded.service import EmbeddedWallet
    from ..slices.embedded import EmbeddedRequest
    from ..slices.model import Model
    from .hub import Hub

PATH = "/embedded/approve"
NONCE_TTL_MS = L.APPROVAL_TIMEOUT_MS
USED_NONCES = 65_536  # nonces spent recently, per process (a decided request waits no more anyway)
_NONCE_PART = 22


__all__ = ["approval_text", "engine_names", "request_digest", "routes", "tree_bytes"]

_HASH_CHARS = 64


class TreeRefused(enum.Enum):
    """Why the engine refuses an Approve for what the frame drew."""

    MALFORMED = "no hash of the approval shown"
    OTHER = "the approval shown is not the one waiting"


def approval_text(session: str, eid: str, digest: str, nonce: str, approve: bool, seen: str,
                  shown: str) -> bytes:
    """What the frame's key signs: the request, the challenge, the verdict, what the frame
    saw (approval_guard.py: how it was shown, for how long, by which site) and the SHA-256 of the
    approval tree it drew (`shown`; embedded/approval_tree.py)."""
    verdict = "approve" if approve else "reject"
    return f"modalcore-approve\n{session}\n{eid}\n{digest}\n{nonce}\n{verdict}\n{seen}\n{shown}".encode()


def tree_bytes(model: Model) -> bytes:
    """The canonical bytes of the approval tree of the request waiting in this session."""
    request = model.embedded.request
    assert request is not None
    return encode(build(model, request))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def approval_evidence(data: dict[str, object], tree: bytes, shown: str, digest: str) -> str:
    """What the audit log keeps of an Approve (audit/derive.py): canonical JSON text."""
    value = {"tree": b64url(tree), "tree_hash": shown, "digest": digest, "nonce": data["nonce"],
             "seen": data.get("seen", ""), "public_key": data["public_key"], "signature": data["signature"]}
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _mac(secret: bytes, session: str, eid: str, at: str, rand: str) -> str:
    text = f"approve-nonce\x00{session}\x00{eid}\x00{at}\x00{rand}".encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()[:32]


def issue_nonce(secret: bytes, session: str, eid: str, now_ms: int) -> str:
    rand = secrets.token_urlsafe(16)
    return f"{now_ms}.{rand}.{_mac(secret, session, eid, str(now_ms), rand)}"


def nonce_ok(secret: bytes, session: str, eid: str, nonce: str, now_ms: int, ttl_ms: int = NONCE_TTL_MS) -> bool:
    """`nonce` is the engine's, for (session, eid), issued less than `ttl_ms` ago."""
    parts = nonce.split(".")
    if len(parts) != 3 or not parts[0].isdigit() or len(parts[0]) > 16 or len(parts[1]) != _NONCE_PART:
        return False
    at, rand, mac = parts
    return 0 <= now_ms - int(at) < ttl_ms and hmac.compare_digest(mac, _mac(secret, session, eid, at, rand))


async def pending(hub: Hub, session: str, eid: str) -> Model | None:
    """The session while its request `eid` waits for the visitor, as its owner holds it
    (wherever its socket is: issue 42, the decision is routed there)."""
    if not session or not eid or len(session) > MAX_ID_CHARS or len(eid) > MAX_ID_CHARS:
        return None
    model = await hub.peek(session)
    if model is None:
        return None
    request = model.embedded.request
    if request is None or request.eid != eid or request.signing or not model.embedded.identity:
        return None
    return model


# the engine settles a simulation within its network's `simulation_ms` (1.5 s unless configured,
# flows/simulation.py); while the outcome is still pending the frame asks again (approval_script)
SIMULATION_WAIT_S = 2.0


def _simulating(model: Model) -> bool:
    request = model.embedded.request
    return request is not None and request.outcome is not None and request.outcome.status == "pending"


async def settled(hub: Hub, session: str, eid: str) -> Model | None:
    """The request waiting, once its outcome is no longer being simulated (issue 43: the
    engine's own timer ends a simulation at 1.5 s; this waits a little longer at most), so the
    tree the frame draws and signs is the one the engine keeps."""
    found = await pending(hub, session, eid)
    deadline = asyncio.get_running_loop().time() + SIMULATION_WAIT_S
    while found is not None and _simulating(found) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
        found = await pending(hub, session, eid)
    return found


def verify_kind(model: Model) -> str:
    """How this session's visitor proves it is them inside the frame: "email" or the provider."""
    return model.embedded.identity.partition(":")[0]


def _page_body(model: Model, eid: str) -> str:
    """The page as the engine draws it from the same tree; the script draws it again from the
    tree's bytes before Approve can count."""
    request = model.embedded.request
    assert request is not None
    tree = build(model, request)
    title = who = ""
    items = []
    outcome = tree["outcome"]
    box = "<section id=outcome aria-label=Outcome hidden></section>"
    if outcome is not None:  # issue 43; the script draws it again from the tree's bytes
        changes = "".join(f"<li>{html.escape(c)}</li>" for c in outcome["changes"])
        box = (f"<section id=outcome aria-label=Outcome data-status={outcome['status']}>"
               f"<p class=note>{html.escape(outcome['note'])}</p>{f'<ul>{changes}</ul>' if changes else ''}</section>")
    for item in tree["nodes"]:
        if item["t"] == "heading":
            title = item["text"]
        elif item["t"] == "who":
            who = f"{item['text']} · {item['origin']}"
        elif item["t"] == "row":
            items.append(f"<dt>{html.escape(item['label'])}</dt><dd>{html.escape(item['text'])}</dd>")
    # the details scroll; Reject and Approve stay in sight at the frame's foot (approval_theme.py);
    # the origin line shows once the frame has checked who embeds it (approval_guard.py)
    return (f"<main><h1>{html.escape(title)}</h1><div class=who id=who hidden>{html.escape(who)}</div>"
            f"{box}<dl>{''.join(items)}</dl></main><div class=actions><div id=verify hidden></div><p id=shown role=status></p>"
            "<div class=row><button id=reject type=button>Reject</button>"
            "<button id=approve type=button disabled>Approve</button></div><div id=state role=status></div></div>")


def _elsewhere(shown_by: str) -> HTMLResponse:
    """The engine's own check, before the page names the session's origin: the frame request's
    `Referer` names another site than the one the session joined from (issue 38 §3)."""
    text = html.escape(ELSEWHERE_TEXT % shown_by)
    return HTMLResponse(f"<!doctype html><p id=elsewhere role=alert>{text}</p>", status_code=403,
                        headers={"Content-Security-Policy": "frame-ancestors *; default-src 'none'"})


def routes(hub: Hub, secret: bytes, wallet: EmbeddedWallet | None) -> list[Route]:
    used: OrderedDict[str, None] = OrderedDict()

    async def show(request: Request) -> Response:
        session = request.query_params.get("session", "")
        eid = request.query_params.get("request", "")
        model = await pending(hub, session, eid)
        if model is None:
            return gone()
        request_ = model.embedded.request
        assert request_ is not None
        popup = request.query_params.get("popup") == "1"
        shown_by = referer_origin(request.headers.get("referer"))
        expected = own_origin(request) if popup else model.origin
        if shown_by is not None and not same_origin(shown_by, expected):
            return _elsewhere(shown_by)
        data = json.dumps({"path": PATH, "session": session, "request": eid, "origin": model.origin,
                           "popup": popup, **({"tree": b64url(tree_bytes(model))} if popup else {})}
                          ).replace("<", "\\u003c")
        mode = "light" if model.theme.mode == "light" else "dark"
        title = html.escape(TITLES.get(request_.method, request_.method))
        script = (POPUP_SCRIPT % {"data": data, "guard": guard_script(), "tree": TREE_SCRIPT} if popup else
                  APPROVAL_SCRIPT % {"data": data, "guard": guard_script(), "tree": TREE_SCRIPT,
                                     "verify": SOCIAL_SCRIPT + FARCASTER_SCRIPT + VERIFY_SCRIPT + PASSKEY_SCRIPT})
        return page(hub, model.project_id, title, mode, style(model.theme) + verify_css() + GUARD_CSS + OUTCOME_CSS,
                    _page_body(model, eid), script, ancestors="'none'" if popup else None)

    async def begin(request: Request) -> Response:
        data = await json_body(request, ("session", "request", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        try:
            key_id, _ = parse_public_key(data["public_key"])
        except BadPublicKey:
            return refused(400, "not a public key")
        model = await settled(hub, data["session"], data["request"])
        if model is None or model.embedded.request is None:
            return refused(404, "this request is no longer waiting")
        identity = model.embedded.identity
        registered = wallet is not None and wallet.devices.public_key(identity, key_id) is not None
        return JSONResponse({"nonce": issue_nonce(secret, data["session"], data["request"], hub.clock.now_ms()),
                             "digest": request_digest(model.embedded.request),
                             "tree": b64url(tree_bytes(model)), "registered": registered,
                             "passkeys": wallet.passkeys.credential_ids(identity) if wallet else [],
                             "verify": verify_kind(model), "provider": NAMES.get(verify_kind(model), ""),
                             "who": model.embedded.user_email})

    async def decide(request: Request) -> Response:
        data = await json_body(request, ("session", "request", "nonce", "public_key", "signature"))
        if data is None or not isinstance(data.get("approve"), bool) or not isinstance(data.get("seen", ""), str):
            return refused(400, "malformed body")
        session, eid, nonce, approve = data["session"], data["request"], data["nonce"], data["approve"]
        if not approve and not from_own_frame(request):
            return refused(403, "only the approval frame may decide")
        now = hub.clock.now_ms()
        if not nonce_ok(secret, session, eid, nonce, now) or nonce in used:
            return refused(403, "not a challenge of this request")
        model = await pending(hub, session, eid)
        if model is None:
            return refused(404, "this request is no longer waiting")
        assert model.embedded.request is not None
        evidence = ""
        if approve:
            try:
                key_id, _ = parse_public_key(data["public_key"])
            except BadPublicKey:
                return refused(403, "not a key of this wallet")
            seen = data.get("seen", "")
            why = refusal(parse_seen(seen), model.origin)
            if why is not None:
                return refused(403, why.value)
            shown = data.get("tree_hash")
            if not isinstance(shown, str) or len(shown) != _HASH_CHARS:
                return refused(403, TreeRefused.MALFORMED.value)
            # the tree the engine would draw now for the request waiting: the frame must have
            # drawn exactly that (a tree drawn for another call, or one changed since, is refused)
            tree = tree_bytes(model)
            if not hmac.compare_digest(shown, tree_hash(tree)):
                return refused(403, TreeRefused.OTHER.value)
            digest = request_digest(model.embedded.request)
            text = approval_text(session, eid, digest, nonce, True, seen, shown)
            if "passkey" in data:  # issue 43 §3: the account's passkey, the visitor verified
                failed = passkey_refusal(hub, request, wallet, model, data["passkey"], text)
                if failed is not None:
                    return refused(403, failed.value)
                data = {**data, "public_key": passkey_evidence(wallet, data["passkey"]),
                        "signature": json.dumps(data["passkey"], sort_keys=True)}
            elif wallet is None or not wallet.devices.verify(model.embedded.identity, key_id, text, data["signature"]):
                return refused(403, "not a key of this wallet")
            evidence = approval_evidence(data, tree, shown, digest)
        used[nonce] = None
        while len(used) > USED_NONCES:
            used.popitem(last=False)
        await hub.route(session, ApprovalDecided(eid=eid, approve=approve, evidence=evidence))
        return JSONResponse({"ok": True})

    return [Route(PATH, show, methods=["GET"]), Route(PATH + "/begin", begin, methods=["POST"]),
            Route(PATH, decide, methods=["POST"])]
