"""Origin allow-lists with wildcard patterns (behaviour.md §5 origin rule, behaviour.md §9 default ancestors).

A pattern is `scheme://host[:port]`:
- `*` as a whole host label matches exactly one label (`https://*.vercel.app` matches
  `https://my-app.vercel.app`, not `https://vercel.app` nor `https://a.b.vercel.app`);
- `:*` matches any port, or none;
- no port matches the scheme's default port only;
- no scheme (`example.com`) matches http and https;
- `*` alone matches every origin.
Hosts compare case-insensitively. The origin `null` and origins with a path never match.

The defaults are narrower than behaviour.md §9's list (issue 38 §3): only localhost and 127.0.0.1 on any
port; a hosting wildcard must be listed by the operator (docs/operators/security.md says why).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..rules import limits as L

# behaviour.md §9's default allowed ancestors (AppKit's). Not a default here (issue 38 §3): anyone can
# register a `*.vercel.app`, `*.pages.dev` or `*.ngrok-free.app` site, and the two WalletConnect
# hosts are WalletConnect's own pages; a project that is served there lists its own origin.
SPEC_DEFAULT_ANCESTORS: tuple[str, ...] = (
    "http://localhost:*",
    "http://127.0.0.1:*",
    "https://*.pages.dev",
    "https://*.vercel.app",
    "https://*.ngrok-free.app",
    "https://secure-mobile.walletconnect.com",
    "https://secure-mobile.walletconnect.org",
)
# What every project allows unless `default_origins = false`: pages on the visitor's own machine
# (a developer's dApp under `npm run dev`), which no stranger can serve to a visitor.
DEFAULT_ALLOWED_ANCESTORS: tuple[str, ...] = SPEC_DEFAULT_ANCESTORS[:2]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LABEL = re.compile(r"^(\*|[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?|\[[0-9a-f:.]+\])$")
_PATTERN = re.compile(r"^(?:(?P<scheme>https?)://)?(?P<host>[^:/]+|\[[^\]]+\])(?::(?P<port>\*|\d{1,5}))?$")


class PatternError(ValueError):
    """An allowed-origin pattern this module cannot read."""


@dataclass(frozen=True)
class OriginPattern:
    schemes: tuple[str, ...]
    labels: tuple[str, ...] | None  # None: every host
    port: int | None  # None: any port

    def matches(self, origin: Origin) -> bool:
        if origin.scheme not in self.schemes:
            return False
        if self.labels is not None:
            labels = origin.host.split(".")
            if len(labels) != len(self.labels):
                return False
            if any(want != "*" and want != got for want, got in zip(self.labels, labels)):
                return False
        if self.port is None:
            return True
        if self.port == -1:  # the scheme's default port
            return origin.port == _DEFAULT_PORTS[origin.scheme]
        return origin.port == self.port


@dataclass(frozen=True)
class Origin:
    scheme: str
    host: str
    port: int


def parse_pattern(text: str) -> OriginPattern:
    text = text.strip().lower().rstrip("/")
    if text == "*":
        return OriginPattern(("http", "https"), None, None)
    found = _PATTERN.match(text)
    if found is None:
        raise PatternError(f"not an origin pattern: {text!r}")
    scheme, host, port = found.group("scheme"), found.group("host"), found.group("port")
    labels = tuple(host.split(".")) if not host.startswith("[") else (host,)
    if not all(_LABEL.match(label) for label in labels):
        raise PatternError(f"bad host in origin pattern: {text!r}")
    schemes = (scheme,) if scheme else ("http", "https")
    if port == "*":
        port_value: int | None = None
    elif port is None:
        port_value = -1
    else:
        port_value = int(port)
        if not 0 < port_value < 65536:
            raise PatternError(f"bad port in origin pattern: {text!r}")
    return OriginPattern(schemes, labels, port_value)


def parse_origin(text: str) -> Origin | None:
    """The parts of an `Origin` header value, or None for `null` and anything malformed."""
    text = text.strip()
    if not text or text == "null" or len(text) > L.ORIGIN_CHARS:
        return None
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return Origin(scheme, host, port if port is not None else _DEFAULT_PORTS[scheme])


class OriginPolicy:
    """The patterns one project accepts: its own plus the default allowed ancestors."""

    def __init__(self, patterns: Iterable[str], *, include_defaults: bool = True) -> None:
        texts = list(patterns) + (list(DEFAULT_ALLOWED_ANCESTORS) if include_defaults else [])
        self.patterns = [parse_pattern(text) for text in texts]

    def allows(self, origin_header: str | None) -> bool:
        if origin_header is None:
            return False
        origin = parse_origin(origin_header)
        if origin is None:
            return False
        return any(pattern.matches(origin) for pattern in self.patterns)
