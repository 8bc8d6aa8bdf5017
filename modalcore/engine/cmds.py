"""Moved to `modalcore.core.cmds` (issue 12, layered imports). This re-export stays only until
the branches written against the old path have merged; slices must import `core` (the import
contract fails on a slice importing this)."""

from ..core.cmds import (
    Effect,
    CancelEffect,
    Call,
    StartTimer,
    CancelTimer,
    Track,
    Dispatch,
    Cmd,
    EffectSettled,
    CallSettled,
)

__all__ = [
    "Effect",
    "CancelEffect",
    "Call",
    "StartTimer",
    "CancelTimer",
    "Track",
    "Dispatch",
    "Cmd",
    "EffectSettled",
    "CallSettled",
]
