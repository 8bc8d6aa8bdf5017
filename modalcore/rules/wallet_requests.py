"""Which requests ask a wallet to sign or send (issue 27). Such a request leaves only once the
saved session knows it is pending: a worker restarted after it left then shows it pending or
lost, and never asks the wallet a second time. When that save does not land (the store is
down) the request is not sent; the asking view gets the failure `NOT_SAVED` instead.
"""

from __future__ import annotations

from collections.abc import Mapping

# EIP-1193 methods (also through WalletConnect) and Wallet Standard features that sign or send
SIGN_OR_SEND_METHODS = frozenset({
    "eth_sendTransaction", "eth_signTransaction", "eth_sendRawTransaction", "eth_sign",
    "personal_sign", "eth_signTypedData", "eth_signTypedData_v3", "eth_signTypedData_v4",
    "wallet_sendCalls", "solana_signMessage", "solana_signTransaction",
    "solana_signAndSendTransaction", "solana:signMessage", "solana:signTransaction",
    "solana:signAndSendTransaction",
})
WALLET_EFFECT_KINDS = frozenset({"eip1193", "solana", "walletconnect"})

NOT_SAVED = "Request not sent: your session could not be saved. Please try again."
NOT_SAVED_CODE = -32603  # EIP-1193 internal error: the wallet was never asked


def asks_to_sign(kind: str, req: Mapping[str, object]) -> bool:
    """An effect of `kind` with request `req` asks a wallet to sign or send."""
    return kind in WALLET_EFFECT_KINDS and req.get("method") in SIGN_OR_SEND_METHODS
