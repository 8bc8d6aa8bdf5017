"""Send state (SPEC §3 "Send state"); the form is reset when the network switches."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine.model import Model


@dataclass(frozen=True)
class SendState:
    token: str | None = None  # token address, or "native"
    amount: str = ""
    receiver: str = ""
    receiver_profile_name: str | None = None
    receiver_profile_image_url: str | None = None
    network_balance_usd: str | None = None
    loading: bool = False
    last_retry: int | None = None


def reset_send(model: Model) -> Model:
    return replace(model, send=SendState())
