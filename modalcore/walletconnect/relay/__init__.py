"""A local WalletConnect relay for development and tests (relay-server-rpc, plus the two
methods SDK 2.25 sends that the spec does not list). Binds 127.0.0.1 only.

    python -m modalcore.walletconnect.relay --port 8790
"""

from .mailbox import Limits, Mailbox, Stored
from .server import RelayServer, running_relay

__all__ = ["Limits", "Mailbox", "RelayServer", "Stored", "running_relay"]
