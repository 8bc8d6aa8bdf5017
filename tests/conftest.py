"""Fixtures every test folder may use: the local dev chains (`devchains`, `devchain`) and a
real `redis-server` on a free loopback port (`redis_url`); a throwaway PostgreSQL cluster
(`postgres`, started on first use) and a fresh empty database in it per test (`pg_url`). Background servers' keepalive pings
draw from a `random.Random` of their own, never the global one (tests/background_random.py). A
run fails when a test leaves a process running (modalcore_testing/leftovers.py)."""

from collections.abc import Iterator

import pytest

from modalcore.store.redis_server import redis_server
from modalcore_testing.postgres import PostgresProcess, postgres_process

from . import background_random

background_random.isolate()

pytest_plugins = ["modalcore_dev.devchain.pytest_plugin", "modalcore_dev.solana_devchain.pytest_plugin",
                  "modalcore_testing.leftovers"]


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real redis-server for the whole run (tests keep apart by key prefix)."""
    with redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresProcess]:
    """A real PostgreSQL for the whole run, stopped at its end (PostgresMissing, a failure,
    when it is not installed: `make postgres`)."""
    with postgres_process() as server:
        yield server


@pytest.fixture
def pg_url(postgres: PostgresProcess) -> str:
    """A new empty database of the run's cluster (tests keep apart by database)."""
    return postgres.create_database()
