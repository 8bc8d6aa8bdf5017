"""The throwaway PostgreSQL the tests start (modalcore_testing/postgres.py): a missing install
is an error naming `make postgres`, never a skipped test; a stopped cluster leaves no process."""

from __future__ import annotations

import glob
import shutil
import tempfile

import pytest

from modalcore_testing import postgres
from modalcore_testing.postgres import PostgresMissing, PostgresProcess


def test_rule_a_missing_postgresql_is_an_error_not_a_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glob, "glob", lambda pattern: [])
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(PostgresMissing, match="make postgres"):
        postgres.server_bin()


def test_a_stopped_cluster_leaves_no_process() -> None:
    with tempfile.TemporaryDirectory(prefix="mcpg-") as folder:
        server = PostgresProcess(folder)
        server.start()
        process = server.process
        assert process is not None and process.poll() is None
        server.stop()
        assert process.poll() is not None and server.process is None
