"""`create_app(config) -> Starlette`: the websocket, health, the renderer's `modal.js` and (when
the config turns them on) the demo dApp page, and the dev-chain proxy and local onramp page that
`rigs` brings from `modalcore_dev` (server/rigs.py).

A production config (`python -m modalcore serve`) exposes the engine only: `/static/modal.js`,
no demo page at `/`, no `/static/demo.js`, no dev route (issue 27 item 4). Every HTTP response
passes `SecurityHeaders` (server/headers.py).

Everything a request needs hangs off `app.state` (config, hub, store, http); there are no
module-level singletons, so several apps (e.g. before and after a simulated restart) can live
in one process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send


from ..core.plural import counted
from ..analytics.events import AnalyticsObserver
from ..analytics.hosted import HostedAnalyticsSink
from ..analytics.local import LocalAnalyticsSink
from .analytics_routes import routes as analytics_routes
from ..analytics.sinks import build_sink
from ..audit.observer import AuditObserver
from ..audit.signer import HeadSigner
from .audit_routes import routes as audit_routes
from ..directory.backend.routes import routes as directory_routes
from ..icons.routes import routes as icon_routes
from ..embedded.service import EmbeddedWallet, embedded_services, userop_services
from ..embedded.setup import open_wallet, section_of
from ..durable.config import open_shared
from .stores import open_names, open_siwx, siwx_key_file
from ..services.backend.blockchain_api import BlockchainApi
from ..services.backend.profile_api import ProfileApi
from ..services.backend.wiring import register_engine_services
from ..siwx.backend.http import routes as siwx_routes
from ..ports.analytics import AnalyticsSink
from ..slices.alerts import AnalyticsForbidden
from ..ports.clock import Clock
from ..runtime.clock import RealClock
from ..runtime.services import ServiceRegistry, default_services
from ..runtime.walletconnect import WalletConnectRuntime
from ..store.base import SessionStore
from ..store.memory import MemoryStore
from ..store.optional import REDIS_MISSING, RedisStore, redis_db, sentinel_store
from ..store.sqlite import SqliteStore
from ..walletconnect.domain.sign_rpc import Metadata
from .config import ConfigError, EngineConfig, default_config, resolve_secret, unknown_keys
from .approval import routes as approval_routes
from .passkey import routes as passkey_routes
from .social import routes as social_routes
from .key_window import routes as key_window_routes
from .social_window import OpenedWindows, routes as social_window_routes
from .handoff import routes as handoff_routes, token_service
from .handoff_confirm import routes as handoff_confirm_routes
from .handoff_code import routes as handoff_code_routes
from .handoff_frame import routes as handoff_frame_routes
from .companion import WS_COMPANION_PATH, CompanionDoor, routes as companion_routes
from .companion_relay import CompanionRelay
from ..services.domain.handles import HANDOFF_TOKEN
from ..slices.handoff import use_link_key
from .verify import routes as verify_routes
from .rigs import DevRigs, check_rigs
from .verify_farcaster import routes as verify_farcaster_routes
from .hub import Hub
from .operator_limit import WrongTokens
from .endpoint import WS_MAX_SIZE, WS_PATH, websocket_endpoint
from .socket import Socket
from .bundle import LOADER, BundleFiles, bundle_routes
from .metrics_share import SharedMetrics
from .operator_login import routes as operator_login_routes
from .operator_logout import routes as operator_logout_routes
from .errors_page import routes as errors_routes
from .support_route import routes as support_routes
from .health import healthz, worker_id
from ..runtime.errorbook import ErrorBook
from .headers import DEMO_PAGE_CSP, SecurityHeaders
from .counting_store import CountingStore
from .metrics import Metrics, MetricsObserver, metrics_endpoint

BUILD_HINT = (
    "The renderer is not built yet: run `make renderer` (or `cd renderer && npm ci && "
    "node build.mjs`) and reload.\n"
)
# the bundle is there (an installed wheel's modalcore/static) but no demo page: the wheel ships none
NO_DEMO_PAGE_HINT = (
    "demo_page is on, but this engine's bundle has no demo page: an installed modalcore (its "
    "wheel) ships the modal's script only. The demo page is a test asset of the repository: "
    "run the engine from a checkout (`make renderer`, then `python -m modalcore_dev demo`), or "
    "set demo_page = false.\n"
)


def open_store(config: EngineConfig) -> SessionStore:
    if config.store.kind == "sqlite":
        return SqliteStore(config.path(config.store.path), ttl_ms=config.store.ttl_ms)
    if config.store.kind == "redis":
        if RedisStore is None:
            raise ConfigError(REDIS_MISSING)
        if config.store.sentinels:
            return sentinel_store(config.store.sentinels, config.store.sentinel_service,
                                  ttl_ms=config.store.ttl_ms, prefix=config.store.prefix,
                                  db=redis_db(config.store.url), replicas=config.store.replicas)
        return RedisStore.from_url(config.store.url, config.store.ttl_ms, config.store.prefix,
                                   replicas=config.store.replicas)
    return MemoryStore(ttl_ms=config.store.ttl_ms)


def uvicorn_options() -> dict[str, Any]:
    """Options the app expects from uvicorn, all public settings: frames past 64 KiB are
    answered, not dropped; no permessage-deflate (frames are small msgpack patches that barely
    compress, and each socket's zlib contexts cost far more memory than its session: issue 17's
    idle figure). The websocket protocol is uvicorn's own: the engine never subclasses it or
    edits the scope it hands over (issue 37: a uvicorn release that read one more scope key
    answered every handshake with HTTP 500)."""
    # websockets-sansio: of uvicorn's public protocol choices, the least memory per idle socket
    # (2,000 idle sessions: 31.2 KiB each; the legacy "websockets" 39.3 KiB)
    return {"ws_max_size": WS_MAX_SIZE, "ws_per_message_deflate": False, "ws": "websockets-sansio"}


class EngineApp(Starlette):
    """Starlette, except for the `/ws` socket: it is handed to the endpoint as plain ASGI
    (server/socket.py), without the router's and middleware's per-connection wrapping that an
    idle session would hold for hours."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and _route_path(scope) == WS_PATH:
            state = self.state
            await websocket_endpoint(Socket(scope, receive, send), state.hub, state.config,
                                     state.metrics)
            return
        if scope["type"] == "websocket" and _route_path(scope) == WS_COMPANION_PATH:
            await self.state.companion.serve(Socket(scope, receive, send))  # the linked phone
            return
        await super().__call__(scope, receive, send)


def _route_path(scope: Scope) -> str:
    """The path the router would match (the mount's root_path taken off, as Starlette does)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root) else path


def _unsaved(hub: Hub) -> tuple[int, int]:
    saves = hub.deps.saves
    if saves is None:
        return 0, 0
    health = saves.health()
    return health.unsaved, health.dropped


def _index(static_dir: Path) -> Any:
    async def index(request: Request) -> Response:
        page = static_dir / "index.html"
        if page.is_file():
            return FileResponse(page, headers={"Content-Security-Policy": DEMO_PAGE_CSP})
        return PlainTextResponse(NO_DEMO_PAGE_HINT if (static_dir / "modal.js").is_file() else BUILD_HINT)

    return index


DEMO_ASSETS = frozenset({"demo.js"})  # the demo dApp and its Dev Wallet: `demo_page` only


class RendererFiles(StaticFiles):
    """renderer/dist, but only the files named: a build folder holds more (the demo, the
    inspector's stage, compiled tests) than a host page may load."""

    def __init__(self, directory: Path, names: frozenset[str]) -> None:
        super().__init__(directory=directory, check_dir=False)
        self.names = names

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path not in self.names:
            return PlainTextResponse("Not Found", status_code=404)
        return await super().get_response(path, scope)


def names_api(config: EngineConfig, http: httpx.AsyncClient) -> ProfileApi | None:
    """The hosted profile API (behaviour.md §7) when `[names] api_url` is set."""
    section = (config.model_extra or {}).get("names") or {}
    url = str(section.get("api_url", ""))
    return ProfileApi(http, url, str(section.get("project_id", ""))) if url else None


def blockchain_api(config: EngineConfig, http: httpx.AsyncClient) -> BlockchainApi | None:
    """The hosted Blockchain API (behaviour.md §7) when `[blockchain_api] base_url` is set; otherwise
    history, swaps and onramp run on the engine's own services."""
    section = (config.model_extra or {}).get("blockchain_api") or {}
    url = str(section.get("base_url", ""))
    return BlockchainApi(http, url, str(section.get("project_id", ""))) if url else None


def _engine_identity(address: str, bundle: BundleFiles, loader: BundleFiles) -> Any:
    async def identity(request: Request) -> Response:
        """The address session tokens are signed by (hosts check tokens offline against it) and
        the immutable URLs of the modal script and of its loader (server/bundle.py)."""
        current, small = bundle.current(), loader.current()
        return JSONResponse({"address": address,
                             "bundle": f"/static/{current.hashed_name}" if current else None,
                             "loader": f"/static/{small.hashed_name}" if small else None})

    return identity


log = logging.getLogger(__name__)

WC_METADATA = Metadata(name="modalcore", description="A wallet-connection modal", url="https://modalcore.invalid")


def create_app(
    config: EngineConfig | None = None,
    *,
    clock: Clock | None = None,
    services: ServiceRegistry | None = None,
    analytics: AnalyticsSink | None = None,
    store: SessionStore | None = None,
    record_dir: Path | str | None = None,
    record_name: str | None = None,
    embedded: EmbeddedWallet | None = None,
    metrics_dir: Path | None = None,
    rigs: DevRigs | None = None,
) -> Starlette:
    """The engine app. Anything not given comes from `config` (or the built-in default).
    `metrics_dir`: the directory `serve --workers N` shares, so `/metrics` sums all workers."""
    config = config or default_config()
    dev = check_rigs(config, rigs)
    for key in unknown_keys(config):
        log.warning("config: unknown top-level key %s is ignored", key)
    own_store = store is None
    metrics = Metrics()
    session_store: SessionStore = CountingStore(
        store if store is not None else open_store(config), metrics)
    metrics.worker = worker_id(session_store)
    clock = clock or RealClock()
    sink = analytics or build_sink(config.analytics, session_store, clock)
    engine_secret = resolve_secret(config)
    use_link_key(engine_secret)  # continue on your phone: links derived from the secret, never saved
    hub = Hub(
        config=config,
        secret=engine_secret,
        clock=clock,
        services=services or default_services(),
        analytics=sink,
        store=session_store,
        record_dir=Path(record_dir) if record_dir is not None else None,
        record_name=record_name,
    )
    hub.relay = CompanionRelay(hub, metrics)  # a linked phone's socket that landed here, its session elsewhere
    shared_db = open_shared(config.model_extra)  # [database]: PostgreSQL for every durable record, else files
    siwx_store, signer = open_siwx(config, shared_db)
    head_signer = HeadSigner(session_store, signer, clock.now_ms, worker=metrics.worker)  # anchors the audit log
    metrics.unsaved = lambda: _unsaved(hub)
    errors = ErrorBook()  # the operator's error view (/operator/errors) and modalcore_errors_total
    hub.deps.errors = errors
    metrics.errors = errors.counts
    hub.deps.observers = (MetricsObserver(metrics), *hub.deps.observers,
                          AuditObserver(session_store, head_signer),
                          AnalyticsObserver(sink))
    static_dir = config.static_path()
    own_wallet = embedded is None
    if embedded is None:  # the operator's [embedded] section (None: no SMTP, no email sign-in)
        embedded = open_wallet(section_of(config.model_extra), config.path, engine_secret, config.public_url,
                               shared_db)
    app_embedded = embedded
    hub.embedded_offer = app_embedded.offer() if app_embedded is not None else (False, ())
    walletconnect = WalletConnectRuntime(
        config.walletconnect.relay_url, project_id=config.walletconnect.project_id,
        metadata=WC_METADATA, secret=resolve_secret(config), store=session_store, deliver=hub.deliver,
        pairing_ttl_ms=config.walletconnect.pairing_expiry_ms)
    hub.deps.walletconnect = walletconnect
    name_registry = open_names(config, shared_db)

    shared = (SharedMetrics(metrics_dir, metrics, lambda: len(hub))
              if metrics_dir is not None else None)

    def forbidden(session_id: str) -> None:
        """The analytics API refused this session's origin: its modal shows the alert (behaviour.md §8)."""
        hub.deliver(session_id, AnalyticsForbidden())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with httpx.AsyncClient() as http:
            app.state.http = http
            hub.http = http
            if isinstance(sink, HostedAnalyticsSink):
                sink.http = http
                sink.on_forbidden = forbidden
            register_engine_services(hub.deps.services, http, siwx_store, signer, name_registry,
                                     names_api(config, http), local_onramp=dev.onramp, swap_markets=dev.swap_markets,
                                     blockchain_api=blockchain_api(config, http))
            if app_embedded is not None:
                if app_embedded.socials is not None:
                    app_embedded.socials.http = http
                    app_embedded.socials.store = session_store  # issue 42: every host sees its sign-ins
                if app_embedded.farcaster is not None:
                    app_embedded.farcaster.http = http
                    app_embedded.farcaster.store = session_store  # … and its channels
                for name, service in {**embedded_services(app_embedded), **userop_services(app_embedded)}.items():
                    if name not in hub.deps.services:
                        hub.deps.services.register(name, service)
            if HANDOFF_TOKEN not in hub.deps.services:
                hub.deps.services.register(HANDOFF_TOKEN, token_service(hub))
            hub.start()
            sharing = asyncio.create_task(shared.run()) if shared is not None else None
            log.info("engine ready: %s store, %s, worker %s", config.store.kind,
                     counted(len(config.projects), "project"), metrics.worker)
            if hub.record_dir is not None:
                log.info("recording every new session to %s (one <session>.jsonl each; tokens "
                         "become placeholders)", hub.record_dir.resolve())
            try:
                yield
            finally:
                if sharing is not None:
                    sharing.cancel()
                await hub.close()
                await head_signer.flush()
                await walletconnect.close()
                if isinstance(sink, (HostedAnalyticsSink, LocalAnalyticsSink)):
                    await sink.flush()
                if own_store:
                    await session_store.close()
                else:
                    await session_store.flush()  # the caller's store: what it holds is committed
                siwx_store.close()
                name_registry.close()
                if own_wallet and app_embedded is not None:
                    app_embedded.close()
                if shared_db is not None:
                    shared_db.close()

    assets = DEMO_ASSETS if config.demo_page else frozenset()  # modal.js: server/bundle.py
    bundle = BundleFiles(static_dir)
    loader = BundleFiles(static_dir, LOADER)
    windows = OpenedWindows(session_store)  # issue 39: the sessions whose one-press window was served
    routes = [
        Route("/healthz", healthz),
        Route("/metrics", metrics_endpoint),
        Route("/v1/engine", _engine_identity(signer.address, bundle, loader)),
        *siwx_routes(siwx_store, engine_address=signer.address),
        *directory_routes(),
        *icon_routes(),
        *audit_routes(),
        *approval_routes(hub, engine_secret, app_embedded),
        *companion_routes(hub, engine_secret),  # before handoff's /continue/{link}
        *handoff_code_routes(hub),  # /continue and /continue/code, before /continue/{link}
        *handoff_routes(hub, engine_secret),
        *handoff_confirm_routes(hub, engine_secret, app_embedded),
        *handoff_frame_routes(hub),
        *verify_routes(hub, app_embedded, windows),
        *(key_window_routes(hub) if app_embedded else []),
        *passkey_routes(hub, engine_secret, app_embedded),
        *verify_farcaster_routes(hub, app_embedded),
        *(social_routes(hub, app_embedded.socials, app_embedded.devices)
          if app_embedded and app_embedded.socials else []),
        *(social_window_routes(hub, app_embedded.socials, windows)
          if app_embedded and app_embedded.socials else []),
        *analytics_routes(),
        *operator_login_routes(),
        *operator_logout_routes(),
        *errors_routes(),
        *support_routes(),
        *bundle_routes(bundle),
        *bundle_routes(loader),
        Mount("/static", RendererFiles(static_dir, assets), name="static"),
    ]
    if config.demo_page:  # a test asset: the demo dApp on the engine's own origin
        routes.append(Route("/", _index(static_dir)))
    routes += dev.routes  # the dev-chain proxy and the local onramp page (modalcore_dev)
    app = EngineApp(routes=routes, lifespan=lifespan, middleware=[Middleware(SecurityHeaders)])
    app.state.config = config
    app.state.operator_wrong_tokens = WrongTokens()
    app.state.hub = hub
    app.state.store = session_store
    app.state.metrics = metrics
    app.state.companion = CompanionDoor(hub, config, metrics, engine_secret)
    app.state.shared_metrics = shared
    app.state.embedded = app_embedded
    app.state.durable = shared_db  # /healthz names it while it cannot be reached
    app.state.errors = errors
    return app
