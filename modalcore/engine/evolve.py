"""Moved to `modalcore.core.evolve` (issue 12, layered imports). This re-export stays only until
the branches written against the old path have merged; slices must import `core` (the import
contract fails on a slice importing this)."""

from ..core.evolve import (
    T,
    replace,
)

__all__ = [
    "T",
    "replace",
]
