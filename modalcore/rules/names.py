"""Account names (behaviour.md §5, §8, §9): what a name may be, and what registration needs.

behaviour.md §5: letters, digits, hyphens, at least 4 characters; registration needs an active
network, an address and the auth connector. behaviour.md §9: names are eip155 only, with the operator's
suffix (default .reown.id). The two validation messages are this project's (behaviour.md names none);
the others are behaviour.md §8's."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from . import texts
from .embedded import AUTH_CONNECTOR_ID as AUTH_CONNECTOR_ID  # behaviour.md §2: the auth connector, one constant

MIN_LENGTH = 4
NAME_NAMESPACES = ("eip155",)  # behaviour.md §9: names are eip155 only
DEFAULT_SUFFIX = ".reown.id"

TOO_SHORT = f"Name must be at least {MIN_LENGTH} characters"
BAD_CHARACTERS = "Name can only contain letters, digits and hyphens"
NETWORK_NOT_FOUND = texts.NETWORK_NOT_FOUND  # behaviour.md §8
NO_ADDRESS_OR_AUTH = texts.NO_ADDRESS_OR_AUTH  # behaviour.md §8
UNSUPPORTED_CHAIN = texts.UNSUPPORTED_CHAIN  # behaviour.md §8; names are eip155 only (behaviour.md §9)
ERROR_RESOLVING = texts.ERROR_RESOLVING_NAME
ERROR_SUGGESTIONS = texts.ERROR_NAME_SUGGESTIONS
ERROR_NAMES_FOR_ADDRESS = texts.ERROR_NAMES_FOR_ADDRESS


def error_registering(name: str) -> str:
    return texts.error_registering_name(name)


_ALLOWED = re.compile(r"[A-Za-z0-9-]+")


@dataclass(frozen=True)
class NameProblem:
    message: str


def name_problem(label: str) -> NameProblem | None:
    """Why `label` (the part before the suffix) cannot be a name, or None. Other characters
    are reported before length, so 'a.b' says what is wrong with it."""
    if label and not _ALLOWED.fullmatch(label):
        return NameProblem(BAD_CHARACTERS)
    if len(label) < MIN_LENGTH:
        return NameProblem(TOO_SHORT)
    return None


def is_valid_name(label: str) -> bool:
    return name_problem(label) is None


def full_name(label: str, suffix: str = DEFAULT_SUFFIX) -> str:
    """The registered name: the label, lower-cased, with the operator's suffix."""
    return label.lower() + (suffix if suffix.startswith(".") else "." + suffix)


def registration_problem(label: str, network_id: str | None, address: str | None,
                         auth_connected: bool) -> NameProblem | None:
    """Everything registration checks before it asks for a signature (behaviour.md §5, §8, §9)."""
    if not network_id:
        return NameProblem(NETWORK_NOT_FOUND)
    if not network_id.startswith("eip155:"):
        return NameProblem(UNSUPPORTED_CHAIN)
    if not address or not auth_connected:
        return NameProblem(NO_ADDRESS_OR_AUTH)
    return name_problem(label)


def registration_message(name: str, now_ms: int) -> str:
    """The text the visitor signs to register `name` (full, with suffix): the hosted profile
    API's shape, `{"name":…,"attributes":{},"timestamp":<unix s>}` (JSON.stringify's), so one
    signature serves the engine's registry and `POST /v1/profile/account` alike."""
    return json.dumps({"name": name.lower(), "attributes": {}, "timestamp": now_ms // 1000},
                      separators=(",", ":"))


_DOTTED_LABEL = re.compile(r"^[a-z0-9-]+$")
_EVM_ADDRESS = re.compile(r"^0x[0-9a-f]{40}$")


def looks_like_name(text: str) -> bool:
    """A dotted name of letters, digits and hyphens (`alice.eth`, `satoshi.reown.id`), not an
    address: what a send's receiver field resolves (slices/send_name.py)."""
    lowered = text.strip().lower()
    if _EVM_ADDRESS.match(lowered) or "." not in lowered:
        return False
    return all(_DOTTED_LABEL.match(label) for label in lowered.split("."))


def no_address_for(name: str) -> str:
    """A send to a name that resolves to no address (this project's words; behaviour.md gives none)."""
    return f"No address found for {name}"
