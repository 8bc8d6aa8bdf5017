"""Operator configuration (TOML or JSON): projects, networks, store, secret.

Relative paths (store path, secret file, static dir) resolve against the config file's folder,
or the working directory for the built-in default config.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import secrets
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (BaseModel, ConfigDict, Field, ValidationError, field_validator,
                      model_validator)

from ..aa.config import section_of as smart_accounts_section
from ..chains import catalog
from ..keyfiles import create_once, read_private
from ..rules.limits import DEFAULT_MAX_SESSIONS_PER_ADDRESS, MAX_SIMULATION_MS, MIN_SIMULATION_MS
from ..rules.caip import parse_caip2
from ..walletconnect.backend.uri import PAIRING_EXPIRY_MS
from .origins import DEFAULT_ALLOWED_ANCESTORS, OriginPolicy, parse_pattern
from ..store.sentinel_addresses import parse_sentinels

REPO_ROOT = Path(__file__).resolve().parents[2]
# The renderer bundle: package data in an installed wheel (the build copies renderer/dist there,
# setup.py), else a checkout's own renderer/dist.
PACKAGED_STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
DEFAULT_STATIC_DIR = (PACKAGED_STATIC_DIR if (PACKAGED_STATIC_DIR / "modal.js").is_file()
                      else REPO_ROOT / "renderer" / "dist")


MIN_OPERATOR_TOKEN_BYTES = 32


class ConfigError(ValueError):
    """A config file that cannot be read or does not validate."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NativeCurrency(_Strict):
    name: str
    symbol: str
    decimals: Annotated[int, Field(ge=0, le=36)] = 18


class TokenConfig(_Strict):
    """An ERC-20 whose balance the engine reads for every account on that network."""

    address: str
    symbol: str
    name: str
    decimals: Annotated[int, Field(ge=0, le=36)]
    price: float | None = None  # USD, when the operator knows it (fiat shown only then)
    icon: str = ""


class Network(_Strict):
    """One chain the engine knows, keyed by its CAIP-2 id in `EngineConfig.networks`."""

    name: str
    rpc: Annotated[list[str], Field(min_length=1)]
    native: NativeCurrency
    native_price: float | None = None
    explorer: str = ""
    image: str = ""
    testnet: bool = False
    dev: bool = False  # a local dev chain: reachable through /devchain/{chainId} if devchain_proxy
    tokens: list[TokenConfig] = []
    ens: str = ""  # the chain's ENS registry address: names shown for addresses, sends to names
    simulation_ms: Annotated[int, Field(ge=MIN_SIMULATION_MS, le=MAX_SIMULATION_MS)] = catalog.SIMULATION_MS

    def to_catalog(self, network_id: str) -> catalog.Network:
        return catalog.Network(
            id=network_id,
            name=self.name,
            native=catalog.NativeCurrency(self.native.name, self.native.symbol, self.native.decimals),
            rpc_urls=tuple(self.rpc),
            explorer_url=self.explorer,
            testnet=self.testnet,
            image_url=self.image,
            native_price=self.native_price,
            tokens=tuple(
                catalog.Token(t.address, t.symbol, t.name, t.decimals, t.price, t.icon)
                for t in self.tokens
            ),
            ens_registry=self.ens,
            simulation_ms=self.simulation_ms,
        )


class Project(_Strict):
    name: str = ""
    origins: list[str] = []
    # also allow `http://localhost:*` and `http://127.0.0.1:*`; behaviour.md §9's hosting wildcards
    # (`https://*.vercel.app`, `https://*.pages.dev`, ...) are not defaults: list one in `origins`
    default_origins: bool = True
    features: dict[str, object] = {}  # operator overrides of the host's `features` (operator wins)

    @field_validator("origins")
    @classmethod
    def _patterns(cls, origins: list[str]) -> list[str]:
        for text in origins:
            parse_pattern(text)
        return origins

    def origin_policy(self) -> OriginPolicy:
        return _policy(tuple(self.origins), self.default_origins)


@functools.lru_cache(maxsize=256)
def _policy(origins: tuple[str, ...], include_defaults: bool) -> OriginPolicy:
    return OriginPolicy(origins, include_defaults=include_defaults)


class StoreConfig(_Strict):
    kind: Literal["memory", "sqlite", "redis"] = "memory"
    path: str = ".modalcore/sessions.db"
    url: str = "redis://127.0.0.1:6379/0"  # kind "redis"
    prefix: str = "modalcore:"  # kind "redis": every key starts with it
    # kind "redis" behind Sentinel: the sentinels ("host:port") that name the primary of
    # `sentinel_service` (then `url` gives only the database number); the store follows a failover
    sentinels: Annotated[list[str], Field(max_length=16)] = []
    sentinel_service: str = "modalcore"
    # a save counts as landed once this many replicas have it (Redis WAIT): a primary lost right
    # after a save cannot take it along. 0: the primary's answer is enough
    replicas: Annotated[int, Field(ge=0, le=8)] = 0

    @field_validator("sentinels")
    @classmethod
    def _sentinels(cls, addresses: list[str]) -> list[str]:
        parse_sentinels(addresses)
        return addresses
    ttl_hours: Annotated[float, Field(gt=0)] = 24.0
    # on shutdown, saves that failed (the store down) are retried at most this long (issue 27)
    shutdown_wait_s: Annotated[float, Field(ge=0, le=600)] = 10.0

    @property
    def ttl_ms(self) -> int:
        return int(self.ttl_hours * 3600 * 1000)


class AnalyticsConfig(_Strict):
    """Where tracking events go (behaviour.md §7, Analytics): `local` keeps them in the engine's own
    store (counts on the operator page), `hosted` posts them to `endpoint` as `POST /e`,
    `off` drops them. `test` turns error telemetry on (at most 5 per 60 s)."""

    mode: Literal["local", "hosted", "off"] = "local"
    endpoint: str = ""  # the hosted API's base URL (`/e` and `/getAnalyticsConfig` under it)
    test: bool = False
    # `local`: events older than this many days are forgotten (by the engine once a day, and by
    # `python -m modalcore analytics prune`)
    retention_days: Annotated[int, Field(ge=1, le=36_500)] = 90

    @property
    def retention_ms(self) -> int:
        return self.retention_days * 86_400_000

    @model_validator(mode="after")
    def _endpoint(self) -> AnalyticsConfig:
        if self.mode == "hosted" and not self.endpoint.startswith(("https://", "http://")):
            raise ValueError("mode 'hosted' needs an http(s) endpoint")
        return self


class WalletConnectConfig(_Strict):
    """The engine is every visitor's WalletConnect dApp (runtime/walletconnect.py): the relay it
    keeps one connection to (the public relay in production, with the operator's projectId; the
    local one, `python -m modalcore_dev.walletconnect_relay`, in development and tests)."""

    enabled: bool = True  # off: no WalletConnect connector is offered
    relay_url: str = "wss://relay.walletconnect.org"
    project_id: str = ""
    # behaviour.md §9's pairing expiry (240,000 ms). Shorter only for tests that watch a URI expire;
    # at least 15 s so the fresh URI (EXPIRY_MARGIN_MS before expiry) is shown for a while.
    pairing_expiry_ms: int = Field(default=PAIRING_EXPIRY_MS, ge=15_000, le=PAIRING_EXPIRY_MS)

    @field_validator("relay_url")
    @classmethod
    def _ws(cls, url: str) -> str:
        if not url.startswith(("wss://", "ws://")):
            raise ValueError("relay_url must be a ws:// or wss:// URL")
        return url


class EngineConfig(BaseModel):
    # Other modules may add their own top-level sections (read them from `model_extra`).
    model_config = ConfigDict(extra="allow", frozen=True)

    projects: dict[str, Project] = {}
    networks: dict[str, Network] = {}
    store: StoreConfig = StoreConfig()
    secret: str = ""  # when empty, read from (or generated into) `secret_file`
    secret_file: str = ".modalcore/secret"
    static_dir: str = ""  # default: the wheel's bundle (modalcore/static), or a checkout's renderer/dist
    idle_evict_s: Annotated[float, Field(gt=0)] = 600.0  # detached sessions leave memory
    # A live session whose tree went unused for one to two of these periods drops it (and its
    # index and view memo); the next input draws it again (issue 17's idle memory).
    idle_compact_s: Annotated[float, Field(gt=0)] = 30.0
    # Live sessions one client address may hold; one more is refused (close 4005).
    max_sessions_per_address: Annotated[int, Field(ge=1)] = DEFAULT_MAX_SESSIONS_PER_ADDRESS
    # POST /devchain/{chainId} for `dev` networks (the demo's Dev Wallet). A test asset: it lets
    # any allowed origin use the dev node's unlocked accounts. Off unless turned on (`demo` does).
    devchain_proxy: bool = False
    # The demo dApp page at `/` and its script `/static/demo.js` (with its Dev Wallet, which
    # signs with the dev nodes' well-known keys). A test asset for browser tests and `demo`
    # (which loads demo.js from the engine); a production engine serves neither.
    demo_page: bool = False
    # the engine as browsers reach it; with devchain_proxy it serves the local onramp page there
    public_url: str = ""
    # Bearer token of the operator endpoints (GET /v1/audit/{session}, the analytics page,
    # /metrics); empty turns them off (404). At least 32 bytes (e.g. `python -c "import
    # secrets; print(secrets.token_urlsafe(32))"`); wrong tokens are limited per client address.
    operator_token: str = ""
    analytics: AnalyticsConfig = AnalyticsConfig()
    walletconnect: WalletConnectConfig = WalletConnectConfig()
    base_dir: str = ""  # folder relative paths resolve against (set by load_config)

    @field_validator("operator_token")
    @classmethod
    def _long_token(cls, token: str) -> str:
        if token and len(token.encode()) < MIN_OPERATOR_TOKEN_BYTES:
            raise ValueError(f"operator_token is {len(token.encode())} bytes: it must be at least "
                             f"{MIN_OPERATOR_TOKEN_BYTES} (e.g. python -c \"import secrets; "
                             "print(secrets.token_urlsafe(32))\"), or empty to turn the operator routes off")
        return token

    @field_validator("networks")
    @classmethod
    def _caip2(cls, networks: dict[str, Network]) -> dict[str, Network]:
        for network_id in networks:
            parse_caip2(network_id)
        return networks

    def path(self, text: str) -> Path:
        path = Path(text).expanduser()
        if path.is_absolute():
            return path
        return Path(os.path.normpath(Path(self.base_dir or os.getcwd()) / path))

    def static_path(self) -> Path:
        return self.path(self.static_dir) if self.static_dir else DEFAULT_STATIC_DIR

    def known_networks(self) -> dict[str, catalog.Network]:
        """The built-in chains, with the operator's networks over them; those of its
        `[smart_accounts.chains]` marked (embedded sign-ins get a smart account there, issue 32)."""
        known = catalog.catalog(n.to_catalog(network_id) for network_id, n in self.networks.items())
        section = smart_accounts_section(self.model_extra)
        smart, policy = section.chains, section.sponsor

        def sponsored(key: str, method: str) -> tuple[str, ...]:
            sponsors = (policy is not None and bool(smart[key].paymaster) and key in policy.chains
                        and method in policy.methods)
            return tuple(policy.projects) if sponsors and policy is not None else ()
        return {key: replace(network, smart_accounts=True, sponsored_projects=sponsored(key, "wallet_sendCalls"),
                             sponsored_send_projects=sponsored(key, "eth_sendTransaction")) if key in smart
                else network for key, network in known.items()}

    def dev_network(self, chain_id: str) -> Network | None:
        """The dev network `eip155:<chain_id>`, else `solana:<chain_id>` (a genesis hash prefix)."""
        network = self.networks.get(f"eip155:{chain_id}") or self.networks.get(f"solana:{chain_id}")
        return network if network is not None and network.dev else None

    def allows_origin(self, origin_header: str | None) -> bool:
        """Some project accepts this Origin (the websocket handshake's matcher)."""
        return any(p.origin_policy().allows(origin_header) for p in self.projects.values())


# Top-level sections other modules read from `model_extra` (their own models check them).
EXTRA_SECTIONS = frozenset({"siwx", "names", "blockchain_api", "directory", "embedded", "smart_accounts",
                            "database"})


def unknown_keys(config: EngineConfig) -> list[str]:
    """Top-level keys nothing reads (a misspelt `operator_tokn` would leave the operator pages
    off without a word), each with the known key it most resembles. The engine warns and goes
    on rather than refusing: a config shared by two releases during an upgrade may name a
    section only the newer one reads."""
    known = sorted((set(EngineConfig.model_fields) - {"base_dir"}) | EXTRA_SECTIONS)
    notes = []
    for key in sorted(config.model_extra or {}):
        if key in EXTRA_SECTIONS:
            continue
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
        notes.append(f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key))
    return notes


def parse_config(data: dict[str, object], base_dir: str | Path = "") -> EngineConfig:
    try:
        return EngineConfig.model_validate({**data, "base_dir": str(base_dir)})
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"{where}: {first['msg']}") from error


def load_config(path: str | Path) -> EngineConfig:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error}") from error
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from error
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level is a table")
    return parse_config(data, path.resolve().parent)


DEPLOYMENT = REPO_ROOT / "fixtures" / "chain" / "deployment.json"
# The demo's known USD prices, the ones its Uniswap V2 pools are funded at (devchain/market.py):
# fiat values show wherever a price exists, as they would against a price service.
TOKEN_PRICES = {"TUSD": 1.0, "DEMO": 2.0}
DEV_ETH_PRICE = 2000.0


DEV_CHAIN_NAMES = {31337: "Hardhat", 31338: "Hardhat Two"}  # the dev chains `make chain` starts


def dev_networks(rpc_urls: dict[int, str], deployment: dict[str, Any] | None = None, *,
                 names: dict[int, str] | None = None) -> dict[str, Any]:
    """Config entries for the local dev chains, with the tokens the deploy step created; `names`
    names a chain that is not the Hardhat node of its id (an Anvil node on 31337 is "Anvil": the
    approval's Network row, which the visitor signs, names the node it runs on).

    They are configured as non-test networks so the demo shows balances (behaviour.md §5 fetches
    balances for non-test networks only)."""
    if deployment is None:
        deployment = json.loads(DEPLOYMENT.read_text()) if DEPLOYMENT.is_file() else {}
    names = {**DEV_CHAIN_NAMES, **(names or {})}
    networks: dict[str, object] = {}
    for chain_id, url in sorted(rpc_urls.items()):
        entry = deployment.get(str(chain_id), {})
        networks[f"eip155:{chain_id}"] = {
            "name": names.get(chain_id, f"Dev Chain {chain_id}"),
            "rpc": [url],
            "native": {"name": "Ether", "symbol": "ETH", "decimals": 18},
            "native_price": DEV_ETH_PRICE,
            "testnet": False,
            "dev": True,
            "ens": str(entry.get("ens", {}).get("registry", "")),
            "tokens": [
                {"address": t["address"], "symbol": t["symbol"], "name": t["name"],
                 "decimals": t["decimals"], "price": TOKEN_PRICES.get(t["symbol"])}
                for t in entry.get("tokens", [])
            ],
        }
    return networks


def default_config() -> EngineConfig:
    """A `demo` project open to the default ancestors (localhost), the two local dev chains."""
    return parse_config({
        "projects": {"demo": {"name": "Demo dApp", "origins": []}},
        "networks": dev_networks({31337: "http://127.0.0.1:8545", 31338: "http://127.0.0.1:8546"}),
    })


def resolve_secret(config: EngineConfig) -> bytes:
    """The HMAC secret: from the config, else from `secret_file`, generated there if absent."""
    if config.secret:
        return config.secret.encode()
    path = config.path(config.secret_file)
    try:
        text = read_private(path)
    except FileNotFoundError:
        text = ""
    if text:
        return text.encode()
    return create_once(path, secrets.token_hex(32)).encode()


__all__ = [
    "DEFAULT_ALLOWED_ANCESTORS",
    "ConfigError",
    "EngineConfig",
    "Network",
    "Project",
    "StoreConfig",
    "TokenConfig",
    "WalletConnectConfig",
    "dev_networks",
    "default_config",
    "load_config",
    "parse_config",
    "resolve_secret",
]
