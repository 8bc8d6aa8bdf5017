"""ConnectSocials (AppKit's "All Socials"): every offered social provider as a row, reached by
the "…" that ends Connect's row of marks when more are offered than fit (flows/social.py)."""

from __future__ import annotations

from ..flows.social import offered_socials
from ..slices.model import Model
from ..wire.nodes import Node
from . import parts
from .connect import ALL_SOCIALS, social_row


def body(model: Model) -> Node:
    return parts.column("socials", [social_row(model, p, "socials") for p in offered_socials(model)])


TITLE = ALL_SOCIALS
READS = ("connectors", "directory", "options", "env", "origin", "embedded", "session_id")
