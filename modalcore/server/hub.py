"""The live sessions of one engine process, and the way back to saved ones.

A session is live while its runner task runs: from its creation, or from being restored from
the store when a client rejoins with a valid token, until it has been detached for
`idle_evict_s` (60 s for a session never used, see `modalcore/rules/limits.py`), its host left, or
the engine stops. Saved state outlives it in the store for the store's TTL.

Its parts, one concern each: `addresses` counts live sockets and sessions per client address
(server/addresses.py), `upkeep` runs its timers and background tasks (server/upkeep.py), and its
base `EventRouting` delivers events to the process that owns a session (server/routing.py).
"""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from collections.abc import Sequence
import logging
import secrets
from pathlib import Path

import httpx

from ..chains.catalog import pick
from ..core.evolve import replace
from ..slices.model import initial_model, shared
from ..wire.frames import AnnouncedWallet
from ..engine.persist import PersistError, blob_refs, load_bytes
from ..engine.record import Recorder
from ..engine.session import Session
from ..ports.analytics import AnalyticsSink
from ..ports.clock import Clock
from ..runtime.runner import RunnerDeps, SessionRunner
from ..runtime.runner_inputs import Outlet, SessionClosing, TokenIssuer, TokenRefused
from ..core.services import ServiceContext
from ..runtime.services import ServiceRegistry
from ..slices.connecting import Restored
from ..slices.options import HostOptions, parse_options
from ..core.msg import Msg
from ..wire.codec import encode
from ..store.base import SessionStore
from ..wire.frames import Join
from . import tokens
from .addresses import AddressBook
from .config import EngineConfig
from .routing import EventRouting
from .upkeep import Upkeep

log = logging.getLogger(__name__)

OPTIONS_REMEMBERED = 256  # distinct host option maps whose parsed (immutable) form is shared


class Hub(EventRouting):
    def __init__(
        self,
        *,
        config: EngineConfig,
        secret: bytes,
        clock: Clock,
        services: ServiceRegistry,
        analytics: AnalyticsSink,
        store: SessionStore,
        record_dir: Path | None = None,
        record_name: str | None = None,
    ) -> None:
        self.config = config
        self.known_networks = config.known_networks()  # shared by every session's model
        self.clock = clock
        # (email sign-in offered, social providers): set by create_app from [embedded]
        self.embedded_offer: tuple[bool, tuple[str, ...]] = (False, ())
        self.store = store
        self.record_dir = record_dir
        self.record_name = record_name  # written in each recording's header
        self.http: httpx.AsyncClient | None = None
        self.runners: dict[str, SessionRunner] = {}
        # project -> the engine's origin as its pages' sockets reached it (handoff.py's links,
        # when the config names no public_url)
        self.engine_urls: dict[str, str] = {}
        self.addresses = AddressBook(self.runners, config.max_sessions_per_address)
        self._secret = secret
        self._restoring: dict[str, asyncio.Future[SessionRunner | None]] = {}
        self._options: OrderedDict[bytes, HostOptions] = OrderedDict()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.upkeep = Upkeep(clock=clock, store=store, runners=self.runners,
                             compact_every_s=config.idle_compact_s)
        self.deps = RunnerDeps(
            clock=clock,
            services=services,
            analytics=analytics,
            store=store,
            make_context=self._context,
            idle_evict_ms=int(config.idle_evict_s * 1000),
            on_closed=self._closed,
        )

    def __len__(self) -> int:
        return len(self.runners)

    # ----- tokens (bound to the project and origin they were issued to)
    def token_issuer(self, session_id: str, project_id: str, origin: str) -> TokenIssuer:
        aud = tokens.audience(project_id, origin)

        def issue(generation: int) -> str:
            expiry_s = self.clock.now_ms() // 1000 + self.store.ttl_ms // 1000
            return tokens.sign(self._secret, session_id, generation, expiry_s, aud)

        return issue

    def read_token(self, token: str, project_id: str, origin: str) -> tokens.Claim | None:
        """What a token presented by this project's page at `origin` claims; None when it is
        malformed, forged, expired or was issued to another project or origin."""
        try:
            return tokens.verify(self._secret, token, self.clock.now_ms() // 1000,
                                 tokens.audience(project_id, origin))
        except tokens.TokenError as error:
            log.info("resume refused: %s", error)
            return None

    # ----- host options: the pages of one site send the same map; one parsed copy serves them
    def options(self, raw: dict[str, object]) -> HostOptions:
        """`parse_options(raw)` (OptionsError as it raises), shared between sessions sending
        the same map: HostOptions is immutable, and each session's own copy cost ~1 KiB."""
        key = encode(raw)
        known = self._options.get(key)
        if known is not None:
            self._options.move_to_end(key)
            return known
        parsed = parse_options(raw)
        self._options[key] = parsed
        while len(self._options) > OPTIONS_REMEMBERED:
            self._options.popitem(last=False)
        return parsed

    # ----- live sessions
    def is_live(self, session_id: str) -> bool:
        runner = self.runners.get(session_id)
        return runner is not None and not runner.closing

    def deliver(self, session_id: str, msg: Msg) -> bool:
        """Hand `msg` to a live session (from outside any request: the analytics sink's 403);
        False when the session is not live here."""
        runner = self.runners.get(session_id)
        if runner is None or runner.closing:
            return False
        runner.deliver(msg)
        return True

    # ----- sessions
    async def create(
        self, origin: str, join: Join, options: HostOptions, address: str = ""
    ) -> SessionRunner:
        now = self.clock.now_ms()
        session_id = secrets.token_urlsafe(16)
        model = initial_model(
            join.project, origin, options, join.env, join.wallets, known_networks=self.known_networks,
            walletconnect=self.config.walletconnect.enabled,
        )
        email, socials = self.embedded_offer  # what this engine's [embedded] config offers
        model = replace(model, embedded=shared(replace(model.embedded, email_offered=email, socials=socials)))
        if self.record_dir is None:  # no recording for a support code to open: none is offered
            model = replace(model, doctor=shared(replace(model.doctor, support_codes=False)))
        session = Session(session_id, model, now)
        record_file = None
        if self.record_dir is not None:
            self.record_dir.mkdir(parents=True, exist_ok=True)
            record_file = (self.record_dir / f"{session_id}.jsonl").open("w")
            session.recorder = Recorder(record_file, name=self.record_name)
            session.recorder.join(now, session_id, origin, join, model.networks.known, self.embedded_offer,
                                  walletconnect=self.config.walletconnect.enabled)
        runner = SessionRunner(session, self.deps, record_file=record_file)
        self.runners[session_id] = runner
        self.addresses.count(session_id, address)
        runner.start()
        return runner

    async def find(self, session_id: str) -> SessionRunner | None:
        """The live session, or the saved one brought back to life; None when gone."""
        runner = self.runners.get(session_id)
        if runner is not None and runner.closing and runner.finished is not None:
            await runner.finished  # being evicted: wait, then restore what it saved
            runner = self.runners.get(session_id)
        if runner is not None and not runner.closing:
            if await self._owns(session_id):
                return runner
            # Another engine process took it over (a rejoin landed there): this copy is stale.
            # Its last save is refused by the store; what that process saved is restored below.
            log.info("session %s: taken over by another engine process", session_id)
            await runner.stop()
        pending = self._restoring.get(session_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[SessionRunner | None] = asyncio.get_running_loop().create_future()
        self._restoring[session_id] = future
        try:
            restored = await self._restore(session_id)
            future.set_result(restored)
            return restored
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            del self._restoring[session_id]

    async def _owns(self, session_id: str) -> bool:
        """Whether this process still owns the live session; while the store cannot say (it is
        down, issue 27) the live copy is served: another process cannot have saved meanwhile."""
        try:
            return await self.store.leases.owns(session_id)
        except Exception as error:
            log.warning("session %s: ownership not checked, the store failed (%s)", session_id,
                        type(error).__name__)
            return True

    async def resume(
        self,
        claim: tokens.Claim,
        project_id: str,
        origin: str,
        outlet: Outlet,
        last: int | None,
        wallets: Sequence[AnnouncedWallet] = (),
        options: HostOptions | None = None,
        address: str = "",
    ) -> SessionRunner | None:
        """Attach `outlet` to the session a verified token claims (live or restored), with a
        new token; None when it is gone, of another project, or no longer takes that token.

        `options` are a reloaded page's host options: they replace the stored ones."""
        networks = pick(self.known_networks, options.networks) if options is not None else ()
        session_id = claim.session_id
        for _ in range(3):  # the session may end (idle eviction) between find and attach
            runner = await self.find(session_id)
            if runner is None or runner.session.model.project_id != project_id:
                return None
            try:
                await runner.attach(
                    outlet, self.token_issuer(session_id, project_id, origin),
                    presented=claim.generation, resumed=True, last=last, wallets=wallets,
                    options=options, networks=networks,
                )
            except SessionClosing:
                continue
            except TokenRefused:
                log.info("resume refused: session %s has rotated that token out", session_id)
                return None
            self.addresses.count(session_id, address)
            return runner
        return None

    async def _restore(self, session_id: str) -> SessionRunner | None:
        saves = self.deps.saves
        unsaved = saves.unsaved(session_id) if saves is not None else None
        if unsaved is not None:  # its newest state waits to be saved here: newer than the store's
            data, blobs = unsaved[0], dict(unsaved[1])
        else:
            loaded = await self.store.load(session_id, self.clock.now_ms())
            if loaded is None:
                return None
            data, blobs = loaded, {}
        try:
            refs = blob_refs(data)  # the directory's lists, kept once for every session (issue 17)
            missing = [ref for ref in refs if ref not in blobs]
            if missing:
                blobs.update(await self.store.load_blobs(missing, self.clock.now_ms()))
            session, timers = load_bytes(data, blobs)
        except PersistError as error:  # typed: its message says what, no traceback
            log.warning("session %s: saved state unreadable (%s), dropped", session_id, error)
            await self.store.delete(session_id)
            return None
        if session.id != session_id:
            log.warning("session %s: saved state names %s, dropped", session_id, session.id)
            return None
        try:
            await self.store.leases.claim(session_id)  # one owner: the process the visitor came back to
        except Exception:
            if unsaved is None:
                raise
            # its newest state is here, unsaved (the store is down): the first save that lands
            # takes the lease, unless another process took the session meanwhile
            log.warning("session %s: restored from its unsaved state, not claimed", session_id)
        runner = SessionRunner(session, self.deps, timers=timers)
        self.runners[session_id] = runner
        runner.start()
        runner.deliver(Restored())  # what its previous process had in flight is resolved (issue 38)
        log.info("session %s restored from the store", session_id)
        return runner

    def _closed(self, runner: SessionRunner) -> None:
        if self.runners.get(runner.id) is runner:
            del self.runners[runner.id]
            self.addresses.uncount(runner.id)
        if runner.ended and self.deps.walletconnect is not None:
            # the host destroyed the modal: its WalletConnect session ends too (deleted at the wallet)
            self.upkeep.spawn(self.deps.walletconnect.forget(runner.id))

    def _context(self, session: Session) -> ServiceContext:
        return ServiceContext(
            session_id=session.id,
            project_id=session.model.project_id,
            clock=self.clock,
            http=self.http,
            config=self.config,
            client_address=functools.partial(self.addresses.address_of, session.id),
        )

    # ----- lifecycle
    def start(self) -> None:
        self.loop = asyncio.get_running_loop()  # where `route` runs (tests call in from threads)
        self.upkeep.start()
        self.upkeep.spawn(self._listen())

    async def close(self) -> None:
        """Stop every session (each saves itself and closes its socket with 1001)."""
        self.upkeep.stop_timers()
        if self.relay is not None:
            await self.relay.close()  # the phones relayed from here to another process: they join again
        runners = list(self.runners.values())
        await asyncio.gather(*(runner.stop() for runner in runners), return_exceptions=True)
        saves = self.deps.saves
        if saves is not None:  # saves that failed (the store down): wait for them, bounded
            await saves.drain(self.config.store.shutdown_wait_s)
        await self.upkeep.cancel_tasks()
