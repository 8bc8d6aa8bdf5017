"""The linked phone joins its session as a companion (PROTOCOL.md, "Companion"; issue 44 item 1,
part 3): `POST /continue/companion` gives the phone's page (engine origin) a nonce, the page
signs `modalcore-companion\\n{session}\\n{nonce}` with the device key the computer confirmed and
opens `/ws/companion` with a `join` that carries it. A refusal is typed (`unknown_link`,
`foreign_origin`, `not_linked`), an `error` frame then close 4006: nothing in the session
changed, nothing logged but one line.

A nonce joins once (issue 44, part 3 "Left"): `POST /continue/companion` notes it in the session
store's notes (store/notes.py, named by its SHA-256, holding its session) for
`COMPANION_NONCE_MS`, and the join that passes every other check takes that note
(`store.notes.take`: of two joins, on one engine process or several sharing the store, one gets it);
a second join with it is `unknown_link`. The notes are where the engine's other single-use
things across processes live (a social sign-in's grant, a Farcaster channel); the approval's
per-process set of spent nonces would let a join replayed on another process through.

The phone joins the session where it is live: in this engine process (its host page's socket
is there), or, when another engine process holds it (`store.leases`), through that process: the
join is checked here over the session's last save (`peek`), its nonce spent here, and the socket
relayed to the owner (server/companion_relay.py). A session live nowhere is `unknown_link`."""

from __future__ import annotations

import enum
import hashlib
import logging
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..rules.limits import COMPANION_NONCE_MS, COMPANION_NONCES
from ..embedded.devicekeys import BadPublicKey, parse_public_key, signature_ok
from ..runtime.companion import attach_companion, detach_companion
from ..slices.handoff import linked_key
from ..wire.frames import CompanionJoin, Join
from .approval import issue_nonce, nonce_ok
from .endpoint import FrameReader
from .handshake import Gone, Refused, close, first_frame, refuse, too_many
from .metrics import MeteredOutlet
from .frame_page import from_engine_frame, json_body, refused
from .handoff import PATH as CONTINUE_PATH, links_key, session_of_link
from .socket import Socket

if TYPE_CHECKING:
    from ..runtime.runner import SessionRunner
    from ..slices.model import Model
    from .config import EngineConfig
    from .hub import Hub
    from .metrics import Metrics
    from ..store.base import SessionStore

log = logging.getLogger(__name__)

COMPANION_PATH = CONTINUE_PATH + "/companion"
WS_COMPANION_PATH = "/ws/companion"
CLOSE_COMPANION_REFUSED = 4006
_NONCE_FOR = "companion"  # the approval challenge's `eid` slot: a companion nonce answers nothing else
NONCE_NOTE = "companion-nonce"  # the store notes' kind of a nonce not yet joined with


class CompanionRefusal(enum.Enum):
    UNKNOWN = "unknown_link"  # no live session of that id (here or on its owner), or not a nonce of the engine's for it (or spent)
    FOREIGN_ORIGIN = "foreign_origin"  # not from a page of the engine's own origin
    NOT_LINKED = "not_linked"  # not the phone the computer confirmed, or the signature does not verify


REFUSED_TEXT = {
    CompanionRefusal.UNKNOWN: "no live session of that id",
    CompanionRefusal.FOREIGN_ORIGIN: "a companion joins from the engine's own origin",
    CompanionRefusal.NOT_LINKED: "not the phone linked to this session",
}


def signed_text(session: str, nonce: str) -> bytes:
    """What the phone's key signs to join (PROTOCOL.md, "Companion")."""
    return f"modalcore-companion\n{session}\n{nonce}".encode()


def engine_origin_ok(origin: str | None, engine_url: str, public_url: str = "") -> bool:
    """`origin` is the engine's own: as the browser reached it, or its public URL's."""
    if not origin:
        return False
    if origin == engine_url:
        return True
    public = urlsplit(public_url)
    return bool(public.scheme and public.netloc) and origin == f"{public.scheme}://{public.netloc}"


def refusal(model: Model | None, join: CompanionJoin, secret: bytes, now_ms: int) -> CompanionRefusal | None:
    """Why this companion join is refused by the session `model` (None: no such live session)."""
    if model is None or model.session_id != join.session:
        return CompanionRefusal.UNKNOWN
    if not nonce_ok(secret, join.session, _NONCE_FOR, join.nonce, now_ms, COMPANION_NONCE_MS):
        return CompanionRefusal.UNKNOWN
    key = linked_key(model)
    if not key or key != join.public_key:
        return CompanionRefusal.NOT_LINKED
    try:
        _, spki = parse_public_key(join.public_key)
    except BadPublicKey:
        return CompanionRefusal.NOT_LINKED
    if not signature_ok(spki, signed_text(join.session, join.nonce), join.signature):
        return CompanionRefusal.NOT_LINKED
    return None


def _note_name(nonce: str) -> str:
    return hashlib.sha256(nonce.encode()).hexdigest()


async def keep_nonce(store: SessionStore, session: str, nonce: str, now_ms: int) -> None:
    """Note a nonce given for `session`'s companion join (raises on the store's outage)."""
    await store.notes.note(NONCE_NOTE, _note_name(nonce), session.encode(), now_ms, COMPANION_NONCE_MS, COMPANION_NONCES)


async def spend_nonce(store: SessionStore, join: CompanionJoin, now_ms: int) -> bool:
    """Take the join's nonce: True once, for a nonce given for that session and not yet joined
    with (its note lasts COMPANION_NONCE_MS); the store's outage is a False (one log line)."""
    try:
        kept = await store.notes.take(NONCE_NOTE, _note_name(join.nonce), now_ms)
    except Exception as error:
        log.warning("companion nonce not readable (%s): the join is refused", type(error).__name__)
        return False
    return kept == join.session.encode()


def routes(hub: Hub, secret: bytes) -> list[Route]:
    async def nonce(request: Request) -> Response:
        """A nonce for the linked phone's companion join (the link names the session)."""
        data = await json_body(request, ("link", "public_key"))
        if data is None:
            return refused(400, "malformed body")
        if not from_engine_frame(request, hub.config.public_url):
            return _refusal(CompanionRefusal.FOREIGN_ORIGIN)
        found = await session_of_link(hub, data["link"])
        if found is None:
            return _refusal(CompanionRefusal.UNKNOWN)
        session, model, digest = found
        if digest not in model.handoff.spent:
            return _refusal(CompanionRefusal.UNKNOWN)  # not a link this session's phone claimed
        if not links_key(model, digest, data["public_key"]):
            return _refusal(CompanionRefusal.NOT_LINKED)
        now = hub.clock.now_ms()
        given = issue_nonce(secret, session, _NONCE_FOR, now)
        try:
            await keep_nonce(hub.store, session, given, now)
        except Exception as error:  # the store's outage: no nonce (one log line)
            log.warning("companion nonce not kept (%s)", type(error).__name__)
            return refused(503, "the session store cannot be reached")
        return JSONResponse({"session": session, "nonce": given}, headers={"Cache-Control": "no-store"})

    return [Route(COMPANION_PATH, nonce, methods=["POST"])]


def _refusal(why: CompanionRefusal) -> JSONResponse:
    log.info("companion join refused: %s", why.value)
    return JSONResponse({"error": why.value}, status_code=404 if why is CompanionRefusal.UNKNOWN else 403)


class CompanionDoor:
    """`/ws/companion`: the phone's socket, from its join to its last frame."""

    def __init__(self, hub: Hub, config: EngineConfig, metrics: Metrics, secret: bytes) -> None:
        self.hub, self.config, self.metrics, self._secret = hub, config, metrics, secret

    async def serve(self, ws: Socket) -> None:
        try:
            await ws.accept()
        except Exception:
            return
        runner: SessionRunner | None = None
        outlet: MeteredOutlet | None = None
        address: str | None = None  # set while this socket counts toward its address's cap
        try:
            join = await self._join(ws)
            runner, model, owner = await self._session(join.session)
            if model is not None and model.project_id != ws.project:
                model = None  # another project's session: as if none
            now = self.hub.clock.now_ms()
            why = refusal(model, join, self._secret, now)
            if why is None:
                # counted as a host page's socket (a full address is refused before the nonce is spent)
                if not self.hub.addresses.admit(ws.client_host, join.session, companion=True):
                    raise too_many(self.config.max_sessions_per_address)
                address = ws.client_host
                if not await spend_nonce(self.hub.store, join, now):
                    why = CompanionRefusal.UNKNOWN  # spent by an earlier join, or not given here
            if why is not None:
                raise Refused(why.value, REFUSED_TEXT[why], CLOSE_COMPANION_REFUSED)
            if runner is None:  # held by the process `owner`: relayed there
                assert owner is not None and self.hub.relay is not None
                await self.hub.relay.serve(ws, join, owner)
                return
            outlet = MeteredOutlet(ws, self.metrics)
            await attach_companion(runner, outlet, join.public_key)
            log.info("session %s: its linked phone joined as companion", join.session)
            reader = FrameReader(outlet, runner, self.metrics)
            while reader.take(await ws.receive()):
                pass
        except Refused as refused_:
            log.info("companion join refused: %s", refused_.code)
            await refuse(ws, refused_)
        except Gone:
            pass
        except Exception:
            log.exception("companion socket failed")
            await close(ws, 1011)
        finally:
            if runner is not None and outlet is not None:
                detach_companion(runner, outlet)
            if address is not None:
                self.hub.addresses.release(address)

    async def _session(self, session: str) -> tuple[SessionRunner | None, Model | None, str | None]:
        """The session the phone joins: live here (its runner and model), or held by another
        engine process (its last save, and that process); else nothing."""
        owner = await self.hub.relay.owner(session) if self.hub.relay is not None else None
        if owner is None:  # this process holds it (a copy live here of a session held elsewhere is stale)
            runner = self.hub.runners[session] if self.hub.is_live(session) else None
            return runner, runner.session.model if runner is not None else None, None
        try:
            model = await self.hub.peek(session)
        except Exception as error:  # the store is down: refused (one line)
            log.warning("session %s: not read for its phone (%s)", session, type(error).__name__)
            return None, None, None
        return None, model, owner

    async def _join(self, ws: Socket) -> CompanionJoin:
        frame: Join = await first_frame(ws)
        if frame.companion is None or frame.project != ws.project:
            raise Refused("not_joined", "the first frame must be a companion join", 4003)
        if not engine_origin_ok(ws.origin, ws.engine_url, self.config.public_url):
            why = CompanionRefusal.FOREIGN_ORIGIN
            raise Refused(why.value, REFUSED_TEXT[why], CLOSE_COMPANION_REFUSED)
        return frame.companion

