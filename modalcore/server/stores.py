"""The engine's durable stores besides the embedded wallet's (issue 42): sign-in nonces and
sessions, and the engine's own names, each in its SQLite file on one host, or in the shared
PostgreSQL of `[database] url` (`shared`) when hosts share them."""

from __future__ import annotations

from pathlib import Path

from eth_account.signers.local import LocalAccount

from ..durable.db import Durable
from ..rules.names import DEFAULT_SUFFIX
from ..services.backend.name_registry import NameRegistry
from ..siwx.backend.store import SqliteSiwxStore
from ..siwx.backend.tokens import load_or_create_key
from .config import EngineConfig


def siwx_key_file(config: EngineConfig) -> Path:
    """Where the engine's signing key lives (the config's `[siwx] key_file`)."""
    section = (config.model_extra or {}).get("siwx") or {}
    return config.path(str(section.get("key_file", ".modalcore/engine.key")))


def open_siwx(config: EngineConfig, shared: Durable | None = None) -> tuple[SqliteSiwxStore, LocalAccount]:
    """The sign-in store (in `shared`, the [database] PostgreSQL, else the `[siwx] db` file) and
    the engine's signing key, from the config's `[siwx]` section."""
    section = (config.model_extra or {}).get("siwx") or {}
    db = str(section.get("db", ".modalcore/siwx.db"))
    store = SqliteSiwxStore(shared if shared is not None else db if db == ":memory:" else config.path(db))
    signer = load_or_create_key(siwx_key_file(config))
    return store, signer


def open_names(config: EngineConfig, shared: Durable | None = None) -> NameRegistry:
    """The engine's own name registry, from the config's `[names]` section: `db` (SQLite file;
    `shared`, the [database] PostgreSQL, instead when given) and `suffix` (behaviour.md §9: default
    .reown.id). `api_url` and `project_id` there use the hosted profile API instead (`names_api`)."""
    section = (config.model_extra or {}).get("names") or {}
    if shared is not None:
        return NameRegistry(shared, str(section.get("suffix", DEFAULT_SUFFIX)))
    db = str(section.get("db", ".modalcore/names.db"))
    path = db if db == ":memory:" else config.path(db)
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    return NameRegistry(path, str(section.get("suffix", DEFAULT_SUFFIX)))
