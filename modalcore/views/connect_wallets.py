"""ConnectWallets: the wallet rows Connect leaves out with `features.collapseWallets` (its
"Continue with a wallet" row leads here, as AppKit's w3m-connect-wallets-view)."""

from __future__ import annotations

from ..slices.model import Model
from ..wire.nodes import Node
from . import parts
from .connect import wallet_rows


def body(model: Model) -> Node:
    return parts.column("wallets", wallet_rows(model, "wallets"))


TITLE = "Connect Wallet"
READS = ("connectors", "directory", "options", "env", "origin")
