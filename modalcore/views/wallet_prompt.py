"""Where to act while a wallet request waits (issue 28 item 8): a spinner alone does not say it.

A browser wallet (injected, announced or a Wallet Standard wallet): "Approve in {wallet}" (AppKit's
network switch says "Approve in wallet"; the wallet's name says which). A WalletConnect wallet
lives on a phone: "Open {wallet} on your phone to approve", and on that phone, when it was paired
by its deep link, a button opening it. The embedded wallet asks on this page (the approval frame):
nothing to add.
"""

from __future__ import annotations

from ..rules.embedded import AUTH_CONNECTOR_ID
from ..slices.connectors import WALLET_CONNECT_ID
from ..slices.model import Model
from ..slices.walletconnect import PressedOpenWalletApp
from ..wire.nodes import Node, node

BROWSER = "Approve in {wallet}"
PHONE = "Open {wallet} on your phone to approve"
OPEN = "Open {wallet}"


def wallet_name(model: Model) -> tuple[str, str] | None:
    """(connector id, name) of the wallet the active account signs with; None for the embedded
    wallet or with no account."""
    account = model.accounts.get(model.networks.active_namespace)
    connector_id = account.connector_id
    if account.address is None or not connector_id or connector_id == AUTH_CONNECTOR_ID:
        return None
    info = account.connected_wallet_info
    connector = model.connectors.get(connector_id)
    name = (info.name if info is not None and info.name else "") or (connector.name if connector else "")
    return connector_id, name or "your wallet"


def prompt(model: Model, prefix: str) -> list[Node]:
    """The line (and on a phone the button) saying where the pending request is approved."""
    found = wallet_name(model)
    if found is None:
        return []
    connector_id, name = found
    if connector_id != WALLET_CONNECT_ID:
        return [node("text", f"{prefix}/where", text=BROWSER.format(wallet=name), variant="small", tone="muted")]
    nodes = [node("text", f"{prefix}/where", text=PHONE.format(wallet=name), variant="small", tone="muted")]
    info = model.accounts.get(model.networks.active_namespace).connected_wallet_info
    if model.env.mobile and info is not None and info.link:
        nodes.append(node("button", f"{prefix}/open-wallet", on={"press": PressedOpenWalletApp()},
                          text=OPEN.format(wallet=name), variant="secondary", icon="external"))
    return nodes
