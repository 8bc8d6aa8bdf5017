"""`python -m modalcore serve --workers N`: N uvicorn worker processes on one port (the kernel
spreads the connections), each building its app from the config named in the environment.

Sessions live in one process each, so N > 1 needs a store they share (`kind = "redis"`): a
visitor whose reconnect lands on another worker is resumed there from Redis, and that worker takes
the session over (the store's lease). The secret and the engine's signing key are made once,
before the workers start, so every worker signs and verifies with the same ones.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

from starlette.applications import Starlette

from ..siwx.backend.tokens import load_or_create_key
from .app import create_app
from .stores import siwx_key_file
from .metrics_share import METRICS_DIR_ENV
from .config import EngineConfig, ConfigError, default_config, load_config, resolve_secret

CONFIG_ENV = "MODALCORE_CONFIG"


def check(config: EngineConfig, workers: int) -> None:
    """Refuse N > 1 without a shared store; make the shared secret and key before forking."""
    if workers > 1 and config.store.kind != "redis":
        raise ConfigError(f"--workers {workers} needs [store] kind = \"redis\" (sessions are "
                          f"shared through it), not {config.store.kind!r}")
    resolve_secret(config)
    load_or_create_key(siwx_key_file(config))


def settle_process() -> None:
    """Once the engine is built, before it serves: everything allocated so far (modules, the
    directory, tables; ~120,000 objects) lives as long as the process, so the cyclic garbage
    collector stops walking it (`gc.freeze`). A full collection then walks the sessions only:
    before, each one also walked the startup objects (~70 ms of CPU on this machine, longer
    than the p99 goal of an intent, issue 17)."""
    gc.collect()
    gc.freeze()


def app() -> Starlette:
    """The app factory each worker process calls (uvicorn `factory=True`)."""
    path = os.environ.get(CONFIG_ENV, "")
    metrics_dir = os.environ.get(METRICS_DIR_ENV, "")
    built = create_app(load_config(path) if path else default_config(),
                       metrics_dir=Path(metrics_dir) if metrics_dir else None)
    settle_process()
    return built
