"""Sign-in state (SPEC §3 SIWX session, §4 SIWX)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SiwxState:
    enabled: bool = False
    required: bool = False
    has_session: bool = False
