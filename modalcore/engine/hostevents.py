"""What the host page's subscribers see (`host_event` frames), derived from the model."""

from __future__ import annotations

from typing import Any

from ..views.parts import truncate_address
from ..slices.model import Model


def host_state(model: Model) -> dict[str, dict[str, Any]]:
    namespace = model.networks.active_namespace
    account = model.accounts.get(namespace)
    network = model.networks.active
    return {
        "state": {
            "open": model.modal.open,
            "loading": model.modal.loading,
            "view": model.router.view,
            "selectedNetworkId": model.modal.selected_network_id or "",
            "activeChain": model.modal.active_chain or "",
            "initialized": model.modal.initialized,
        },
        "account": {
            "address": account.address or "",
            "caipAddress": account.caip_address or "",
            "isConnected": account.status == "connected",
            "status": account.status,
            "connector": account.connector_id or "",
            # what a connect button shows: the profile name or the truncated address
            "display": account.profile_name or truncate_address(account.address or ""),
        },
        "siwx": {
            "enabled": model.siwx.enabled,
            "signedIn": model.siwx.has_session,
            "token": model.siwx.token or "",
        },
        "network": {
            "caipNetworkId": network or "",
            "chainId": network.split(":", 1)[1] if network else "",
        },
    }
