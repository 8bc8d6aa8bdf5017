"""A session on the local Solana dev chain whose service calls run the engine's real services,
and a wallet that signs with a dev keypair (what the Solana Dev Wallet does in the browser)."""

from __future__ import annotations

import asyncio
import base64
from dataclasses import replace
from typing import Any

import httpx
from solders.keypair import Keypair
from solders.transaction import Transaction

from modalcore.chains.catalog import SOLANA_LOCAL, catalog
from modalcore.enginetest import Harness
from modalcore.core.services import ServiceError
from modalcore.services.backend.jsonrpc import RpcCallError
from modalcore.services.backend.table import default_services
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, Env

SOLANA_WALLET: dict[str, Any] = {"uuid": "sol-uuid", "name": "Solana Dev Wallet", "icon": "data:image/svg+xml,s",
                                 "rdns": "dev.modal.solana", "namespaces": ["solana"]}


def solana_harness(rpc_url: str, networks: tuple[str, ...] = ("eip155:31337", SOLANA_LOCAL),
                   wallets: tuple[dict[str, Any], ...] = (SOLANA_WALLET,), **options: Any) -> Harness:
    local = replace(catalog()[SOLANA_LOCAL], rpc_urls=(rpc_url,))
    model = initial_model("test-project", "http://localhost:8000",
                          parse_options({"networks": list(networks), **options}), Env(),
                          [AnnouncedWallet.model_validate(w) for w in wallets],
                          known_networks=catalog([local]))
    return Harness(model)


def run_service(name: str, args: dict[str, Any]) -> tuple[bool, Any]:
    async def go() -> Any:
        async with httpx.AsyncClient() as http:
            return await next(s for ref, s in default_services(http).items() if ref.name == name)(**args)

    try:
        return True, asyncio.run(go())
    except (ServiceError, RpcCallError) as error:
        return False, str(error)


def settle(h: Harness, service: str) -> Any:
    """Run the newest pending `service` call with the real service and deliver its result."""
    [*_, call] = h.pending_calls(service)
    ok, result = run_service(service, dict(call.args_data))
    if ok:
        h.settle_call(service, result)
    else:
        h.settle_call(service, ok=False, error=result)
    return result


def connect(h: Harness, keypair: Keypair) -> None:
    h.host("open")
    [item] = [n for n in h.find_text("Solana Dev Wallet", exact=True) if n.t == "wallet-item"]
    h.press(item.id)
    h.answer("standard:connect", [str(keypair.pubkey())])


def sign_pending(h: Harness, keypair: Keypair) -> None:
    """The wallet signs the transaction of the pending solana:signTransaction."""
    effect = h.pending_effect("solana:signTransaction")
    tx = Transaction.from_bytes(base64.b64decode(effect["req"]["params"]["transaction"]))
    tx.sign([keypair], tx.message.recent_blockhash)
    h.answer("solana:signTransaction", {"transaction": base64.b64encode(bytes(tx)).decode()})
