"""The `wc:` pairing URI (walletconnect-specs pairing-uri, EIP-1328).

Formatted as the SDK formats it: `wc:{topic}@2?` then the parameters sorted by name
(`expiryTimestamp`, optional `methods`, `relay-protocol`, optional `relay-data`, `symKey`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

VERSION = 2
PAIRING_EXPIRY_MS = 240_000  # behaviour.md §9: pairing expiry 240000 ms
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class UriError(ValueError):
    """A string that is not a usable WalletConnect v2 pairing URI."""


@dataclass(frozen=True)
class PairingUri:
    topic: str
    sym_key: str
    expiry_timestamp: int  # unix seconds
    relay_protocol: str = "irn"
    relay_data: str | None = None
    methods: tuple[str, ...] = ()
    version: int = VERSION

    def format(self) -> str:
        params: dict[str, str] = {
            "expiryTimestamp": str(self.expiry_timestamp),
            "relay-protocol": self.relay_protocol,
            "symKey": self.sym_key,
        }
        if self.methods:
            params["methods"] = ",".join(self.methods)
        if self.relay_data:
            params["relay-data"] = self.relay_data
        query = urlencode(sorted(params.items()), safe=",[]")
        return f"wc:{self.topic}@{self.version}?{query}"


def parse_uri(value: str) -> PairingUri:
    """Parse a pairing URI (`wc:` or `wc://`); raise UriError on anything unusable."""
    text = value.strip()
    if text.startswith("wc://"):
        text = text[5:]
    elif text.startswith("wc:"):
        text = text[3:]
    else:
        raise UriError("a pairing URI starts with wc:")
    path, _, query = text.partition("?")
    topic, _, version = path.partition("@")
    if not _HEX64.match(topic):
        raise UriError("the topic must be 32 bytes of lowercase hex")
    if version != str(VERSION):
        raise UriError("only WalletConnect v2 pairing URIs are supported")
    params = dict(parse_qsl(query, keep_blank_values=True))
    sym_key = params.get("symKey", "")
    if not _HEX64.match(sym_key):
        raise UriError("symKey must be 32 bytes of lowercase hex")
    protocol = params.get("relay-protocol", "")
    if not protocol:
        raise UriError("relay-protocol is required")
    expiry = params.get("expiryTimestamp", "")
    if not expiry.isdigit():
        raise UriError("expiryTimestamp must be unix seconds")
    methods = tuple(m for m in params.get("methods", "").split(",") if m)
    return PairingUri(topic, sym_key, int(expiry), protocol, params.get("relay-data") or None, methods)


def pairing_expiry(now_ms: int, ttl_ms: int = PAIRING_EXPIRY_MS) -> int:
    """The expiryTimestamp (unix seconds) of a pairing created at `now_ms` (behaviour.md §9's 240 s unless
    the operator set another lifetime)."""
    return (now_ms + ttl_ms) // 1000
