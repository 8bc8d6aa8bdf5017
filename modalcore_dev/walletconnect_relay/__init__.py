"""A local WalletConnect relay for development and tests (relay-server-rpc, plus the two
methods SDK 2.25 sends that the spec does not list). Binds 127.0.0.1 only.

    python -m modalcore_dev.walletconnect_relay --port 8790
"""

from modalcore_dev.walletconnect_relay.mailbox import Limits, Mailbox, Stored
from modalcore_dev.walletconnect_relay.process import relay_process
from modalcore_dev.walletconnect_relay.server import RelayServer, running_relay

__all__ = ["Limits", "Mailbox", "RelayServer", "Stored", "relay_process", "running_relay"]
