"""Error codes of the sign and pairing protocols (walletconnect-specs sign/error-codes) and the
typed failures the dApp side reports."""

from __future__ import annotations

from dataclasses import dataclass

INVALID_METHOD = 1001
INVALID_EVENT = 1002
INVALID_UPDATE_REQUEST = 1003
INVALID_EXTEND_REQUEST = 1004
INVALID_SESSION_SETTLE_REQUEST = 1005
USER_REJECTED_REQUEST = 4001  # EIP-1193
USER_REJECTED = 5000
USER_REJECTED_CHAINS = 5001
USER_REJECTED_METHODS = 5002
USER_REJECTED_EVENTS = 5003
UNSUPPORTED_CHAINS = 5100
UNSUPPORTED_METHODS = 5101
UNSUPPORTED_EVENTS = 5102
UNSUPPORTED_ACCOUNTS = 5103
UNSUPPORTED_NAMESPACE_KEY = 5104
USER_DISCONNECTED = 6000
SESSION_SETTLEMENT_FAILED = 7000
AUTH_REFUSED = "Sign-in could not be verified"  # the visitor's words for a refused one-click sign-in
NO_SESSION_FOR_TOPIC = 7001
SESSION_REQUEST_EXPIRED = 8000
METHOD_UNSUPPORTED = 10001
UNAUTHORIZED_METHOD = 3001
UNAUTHORIZED_CHAIN = 3005

REJECTION_CODES = frozenset(range(5000, 5200))
INVALID_PARAMS_CODES = {
    "wc_sessionSettle": INVALID_SESSION_SETTLE_REQUEST,
    "wc_sessionUpdate": INVALID_UPDATE_REQUEST,
    "wc_sessionExtend": INVALID_EXTEND_REQUEST,
    "wc_sessionEvent": INVALID_EVENT,
}


@dataclass(frozen=True)
class RpcError:
    code: int
    message: str


DISCONNECTED = RpcError(USER_DISCONNECTED, "User disconnected.")


class WalletConnectError(Exception):
    """A failure the dApp side reports to its caller (typed, never a traceback in logs)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ProposalRejected(WalletConnectError):
    """The wallet answered wc_sessionPropose with an error (the visitor declined)."""


class RequestRejected(WalletConnectError):
    """The wallet answered a wc_sessionRequest with an error."""


class RequestExpired(WalletConnectError):
    """No answer before the request's expiry."""


class SessionGone(WalletConnectError):
    """The session was deleted or expired (by either side) while something waited on it."""
