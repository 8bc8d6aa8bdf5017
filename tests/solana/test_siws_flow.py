"""Sign-In with Solana through a session: connecting a Solana wallet with sign-in on opens
SIWXSignMessage; signing asks the wallet for solana:signMessage of the CAIP-122 message and the
engine's SIWS service verifies it (real Ed25519 key, real store). A signature by another key is
refused: no session, the visitor is not signed in."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from eth_account import Account
from solders.keypair import Keypair

from modalcore.chains.catalog import SOLANA_LOCAL
from modalcore.enginetest import Harness
from modalcore.core.services import AnyService as Service
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore_dev.solana_devchain.accounts import dev_keypair
from modalcore.core.services import ServiceTable

from .harness import connect, solana_harness

WALLET = dev_keypair(0)


def call(services: ServiceTable, name: str, **args: Any) -> Any:
    async def go() -> Any:
        return await next(s for ref, s in services.items() if ref.name == name)(**args)
    return asyncio.run(go())


def run(services: ServiceTable, h: Harness, name: str) -> None:
    [*_, pending] = h.pending_calls(name)
    h.settle_call(name, call(services, name, **pending.args_data))


def signing_in() -> tuple[Harness, ServiceTable]:
    services = siwx_services(SqliteSiwxStore(":memory:"), None, Account.create(), clock=lambda: 1_700_000_000_000)
    h = solana_harness("http://127.0.0.1:9", networks=(SOLANA_LOCAL,), siwx={"required": True, "statement": "Sign in"})
    h.now = 1_700_000_000_000
    connect(h, WALLET)
    run(services, h, "siws.sessions")
    assert h.view == "SIWXSignMessage"
    h.press("siwx/sign")
    run(services, h, "siwx.nonce")
    return h, services


def answer_signature(h: Harness, signer: Keypair) -> str:
    effect = h.pending_effect("solana:signMessage")
    assert effect["kind"] == "solana" and effect["req"]["params"]["account"] == str(WALLET.pubkey())
    text = base64.b64decode(effect["req"]["params"]["message"]).decode()
    signature = base64.b64encode(bytes(signer.sign_message(text.encode()))).decode()
    h.answer("solana:signMessage", {"signature": signature})
    return text


def test_siws_signed_by_the_wallet_signs_the_visitor_in() -> None:
    h, services = signing_in()
    text = answer_signature(h, WALLET)
    assert text.startswith("localhost:8000 wants you to sign in with your Solana account:\n" + str(WALLET.pubkey()))
    assert "Chain ID: CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3" in text
    run(services, h, "siws.verify")
    assert h.model.siwx.has_session and h.model.siwx.token
    assert h.model.siwx.session_address == f"{SOLANA_LOCAL}:{WALLET.pubkey()}"
    sessions = call(services, "siws.sessions", address=str(WALLET.pubkey()), domain="localhost:8000",
                    chain=SOLANA_LOCAL)
    assert len(sessions["sessions"]) == 1


def test_siws_signed_by_another_key_is_refused_and_nothing_stored() -> None:
    h, services = signing_in()
    answer_signature(h, dev_keypair(1))
    run(services, h, "siws.verify")
    assert not h.model.siwx.has_session and h.model.siwx.token is None
    assert h.view == "SIWXSignMessage"
    sessions = call(services, "siws.sessions", address=str(WALLET.pubkey()), domain="localhost:8000",
                    chain=SOLANA_LOCAL)
    assert sessions["sessions"] == []
