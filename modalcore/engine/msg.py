"""Moved to `modalcore.core.msg` (issue 12, layered imports). This re-export stays only until
the branches written against the old path have merged; slices must import `core` (the import
contract fails on a slice importing this)."""

from ..core.msg import (
    Msg,
    msg_to_data,
    msg_from_data,
)

__all__ = [
    "Msg",
    "msg_to_data",
    "msg_from_data",
]
