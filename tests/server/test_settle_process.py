"""Issue 17: a serving process takes what it built at start out of the garbage collector's walks
(`gc.freeze`), so a full collection costs the sessions only."""

from __future__ import annotations

import gc

from modalcore.server.app import create_app
from modalcore.server.workers import settle_process
from modalcore_testing import make_test_config


def test_the_objects_built_at_start_are_not_walked_by_full_collections() -> None:
    create_app(make_test_config())
    try:
        settle_process()
        frozen = gc.get_freeze_count()
        assert frozen > 50_000  # the modules, tables and the app built above
        assert len(gc.get_objects()) < frozen  # what a full collection walks now
    finally:
        gc.unfreeze()
