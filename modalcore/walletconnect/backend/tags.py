"""IRN tags and TTLs of each sign and pairing RPC (walletconnect-specs sign/rpc-methods and
pairing/rpc-methods tables)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MIN_REQUEST_EXPIRY = 300  # seconds: sessionRequest expiry bounds (spec "Expiry validation")
MAX_REQUEST_EXPIRY = 604_800


@dataclass(frozen=True)
class Irn:
    ttl: int  # seconds the relay keeps the message
    tag: int


@dataclass(frozen=True)
class RpcOpts:
    req: Irn
    res: Irn
    reject: Irn | None = None
    auto_reject: Irn | None = None


SIGN_RPC: dict[str, RpcOpts] = {
    "wc_sessionPropose": RpcOpts(Irn(300, 1100), Irn(300, 1101), Irn(300, 1120), Irn(300, 1121)),
    "wc_sessionSettle": RpcOpts(Irn(300, 1102), Irn(300, 1103)),
    "wc_sessionUpdate": RpcOpts(Irn(86400, 1104), Irn(86400, 1105)),
    "wc_sessionExtend": RpcOpts(Irn(86400, 1106), Irn(86400, 1107)),
    "wc_sessionRequest": RpcOpts(Irn(300, 1108), Irn(300, 1109)),
    "wc_sessionEvent": RpcOpts(Irn(300, 1110), Irn(300, 1111)),
    "wc_sessionDelete": RpcOpts(Irn(86400, 1112), Irn(86400, 1113)),
    "wc_sessionPing": RpcOpts(Irn(30, 1114), Irn(30, 1115)),
    "wc_sessionAuthenticate": RpcOpts(Irn(3600, 1116), Irn(3600, 1117), Irn(300, 1118), Irn(300, 1119)),
    "wc_pairingDelete": RpcOpts(Irn(86400, 1000), Irn(86400, 1001)),
    "wc_pairingPing": RpcOpts(Irn(30, 1002), Irn(30, 1003)),
}
UNSUPPORTED = Irn(86400, 0)

Direction = Literal["req", "res", "reject", "auto_reject"]


def irn(method: str, direction: Direction) -> Irn:
    """Tag and TTL of one message; responses to unknown methods use the spec's `unsupported` row."""
    opts = SIGN_RPC.get(method)
    if opts is None:
        return UNSUPPORTED
    chosen = getattr(opts, direction)
    return chosen if isinstance(chosen, Irn) else opts.res


def request_ttl(expiry: int | None, now_s: int) -> int:
    """wc_sessionRequest TTL, extended to cover the request's expiry (spec "TTL extension")."""
    base = SIGN_RPC["wc_sessionRequest"].req.ttl
    if expiry is None:
        return base
    return max(base, expiry - now_s)
