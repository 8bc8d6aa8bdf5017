"""WalletConnect pairing as the visitor sees it: the `wc:` URI shown as a QR code (and deep
link), its expiry, and what the wallet answered.

The pairing itself runs in the engine's runtime (runtime/walletconnect.py) through effects of
kind `walletconnect`; this slice only keeps what the views draw. Its handlers are in
flows/walletconnect.py (they connect the account, which spans slices).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.cmds import EffectReply, Reply
from ..core.msg import Msg
from .siwx import SiwxNonce

CONNECTING_VIEW = "ConnectingWalletConnect"
EXPIRY_TIMER = "wc:expiry"
EXPIRY_MARGIN_MS = 5_000  # a fresh URI this long before the pairing expires (behaviour.md §9: within 10 s)


@dataclass(frozen=True)
class WcState:
    attempt: int = 0  # numbers pairings: an answer for an older one is ignored
    route: str = ""  # "<view>|<param>" the pairing in flight is shown on ("" when none)
    uri: str = ""  # the `wc:` URI (empty until the runtime made it)
    expiry: int = 0  # unix seconds
    error: str | None = None  # what the view shows after a failure (with Try again)
    # a phone opened the wallet's deep link with this route's pairing (once per visit of the
    # wallet page, as AppKit's ConnectingWcMobile; "Open" opens it again)
    deep_linked: bool = False

    @property
    def pairing(self) -> bool:
        return bool(self.route) and not self.uri and self.error is None


@dataclass(frozen=True)
class PressedRetryWalletConnect(Msg):
    pass


@dataclass(frozen=True)
class PressedCopyWcLink(Msg):
    pass


@dataclass(frozen=True)
class PressedOpenWcLink(Msg):
    """Open the wallet's deep link (mobile) or desktop link with the pairing URI."""

    kind: str  # "mobile" | "desktop"


@dataclass(frozen=True)
class PressedOpenWalletApp(Msg):
    """Open the WalletConnect wallet on this phone (its deep link) to approve a request."""


@dataclass(frozen=True)
class WalletAppOpened(EffectReply):
    """The browser opened the wallet's deep link, or could not."""


@dataclass(frozen=True)
class WcPairingCreated(EffectReply):
    """The runtime made a pairing: `{uri, expiry}` (`key`: the attempt)."""


@dataclass(frozen=True)
class WcNonceFetched(Reply):
    """The engine issued the nonce of a one-click sign-in pairing (`key`: the attempt)."""

    result: SiwxNonce | None = None


@dataclass(frozen=True)
class WcApprovalAnswered(EffectReply):
    """The wallet approved (`{accounts, chain, peer}`, plus `siwx: {message, signature}` after a
    one-click sign-in) or declined the proposal (`key`: the attempt)."""


@dataclass(frozen=True)
class WcLinkCopied(EffectReply):
    """The browser copied the pairing link, or could not."""


@dataclass(frozen=True)
class WcLinkOpened(EffectReply):
    """The browser opened the wallet's link with the URI, or could not."""


@dataclass(frozen=True)
class WcPairingExpired(Msg):
    """The pairing of `attempt` reached its expiry (a timer)."""

    attempt: int
