"""One-click sign-in over WalletConnect (issue 13, behaviour.md §7 "WalletConnect authenticate is used for
SIWX"): a session driven by the Harness whose `walletconnect` effects the engine's runtime runs
against the local relay and the real wallet peer (the official sign-client 2.25 under Node, signing
with ethers over Hardhat account #0), and whose `siwx.*` calls the engine's real SIWX services
answer (nonces and sessions in SQLite). The wallet sees one wc_sessionAuthenticate and one
fallback proposal on the same pairing, as the JS SDK's `authenticate()` sends them."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from eth_account import Account

from modalcore.core.cmds import EffectSettled
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.enginetest import Harness
from modalcore.core.services import AnyService
from modalcore.runtime.walletconnect import WalletConnectRuntime, store_key
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore.store.memory import MemoryStore
from modalcore.walletconnect.domain.auth import build_payload
from modalcore.walletconnect.domain.proposal import EIP155_METHODS
from modalcore_dev.walletconnect_relay import running_relay
from modalcore.core.services import ServiceTable

from .conftest import DAPP, DEV_ADDRESS, WalletPeer, wallet_peer

pytestmark = pytest.mark.chain
NETWORKS = ["eip155:31337", "eip155:31338"]
SID = "session-one-click"
REFUSED = "Sign-in could not be verified"


@dataclass
class Engine:
    h: Harness
    rt: WalletConnectRuntime
    services: ServiceTable
    siwx: SqliteSiwxStore
    store: MemoryStore
    views: list[str]

    async def run(self, method: str) -> tuple[bool, Any, int, str]:
        """The runtime runs the session's pending `method` effect; its outcome goes back to it."""
        effect = self.h.pending_relay(method)
        self.h.cmds.remove(effect)
        outcome = await self.rt.run(SID, dict(effect.req))
        success, result, code, message = outcome
        self.h.deliver(EffectSettled(effect.eid, effect.to, success, result if success else None,
                                     0 if success else code, "" if success else message))
        self.views.append(self.h.view)
        return outcome

    async def call(self, service: str) -> Any:
        """The session's pending `service` call answered by the engine's real SIWX service."""
        call = self.h.pending_calls(service)[-1]
        result = await self.services[call.service](**call.args_data)
        self.h.settle_call(service, result)
        self.views.append(self.h.view)
        return result

    async def pair(self) -> str:
        """Connect → WalletConnect: the engine's nonce, then the pairing URI."""
        await self.call("siwx.nonce")
        ok, result, _, _ = await self.run("wc_pair")
        assert ok, result
        return str(result["uri"])


@asynccontextmanager
async def engine(tmp_path: Path, relay_url: str, *, required: bool = True) -> AsyncIterator[Engine]:
    store = MemoryStore()
    rt = WalletConnectRuntime(relay_url, metadata=DAPP, secret=b"one-click-secret", store=store,
                              deliver=lambda _sid, _msg: None)
    siwx = SqliteSiwxStore(tmp_path / "siwx.sqlite")
    services = siwx_services(siwx, None, Account.create(), clock=lambda: time.time_ns() // 1_000_000)
    h = Harness(options={"networks": NETWORKS, "siwx": {"required": required}}, walletconnect=True,
                now=time.time_ns() // 1_000_000, session_id=SID)
    h.host("open")
    h.press("connect/wallet/walletConnect")
    try:
        yield Engine(h, rt, services, siwx, store, [h.view])
    finally:
        await rt.close()


def wallet_events(wallet: WalletPeer, name: str) -> list[dict[str, Any]]:
    return [e for e in wallet.events if e["event"] == name]


async def stored_sessions(e: Engine) -> list[Any]:
    return await e.siwx.sessions_for(DEV_ADDRESS, None, None, time.time_ns() // 1_000_000)


async def test_one_click_sign_in_connects_and_signs_in_with_one_wallet_prompt(
        devchain: ChainsInfo, tmp_path: Path) -> None:
    """Rule: with sign-in set up, the engine pairs with methods=wc_sessionAuthenticate and sends
    the authenticate request (its nonce, domain, aud, the host's chains, caip122) beside the
    fallback proposal; the wallet's one approval (one CACAO per chain, EIP-191 by ethers) leaves
    the visitor connected and signed in: the engine rebuilt and verified the message and stored
    the SIWX session; no personal_sign, no proposal answered, SIWXSignMessage never shown; the
    session made from the CACAOs carries requests (a chain switch goes to the wallet)."""
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls) as wallet, \
            engine(tmp_path, relay.url) as e:
        nonce_call = e.h.pending_calls("siwx.nonce")[-1]
        assert nonce_call.args_data["session_key"] == SID
        uri = await e.pair()
        assert parse_qs(uri.split("?", 1)[1])["methods"] == ["wc_sessionAuthenticate"]
        await wallet.send(cmd="pair", uri=uri)
        asked = await wallet.expect("authenticate")
        domain = e.h.model.origin.split("://", 1)[1]
        assert asked["domain"] == domain and asked["aud"] == e.h.model.origin
        assert asked["chains"] == NETWORKS and asked["type"] == "caip122"
        ok, result, _, _ = await e.run("wc_approval")
        assert ok, result
        assert result["accounts"][0] == DEV_ADDRESS and result["chain"] == "eip155:31337"
        assert result["siwx"]["message"].startswith(f"{domain} wants you to sign in with your Ethereum account:")
        assert f"Nonce: {asked['nonce']}" in result["siwx"]["message"]

        approved = await wallet.expect("auth_approved")
        assert approved["cacaos"] == 2
        assert not e.h.pending_calls("siwx.sessions")  # no lookup: the sign-in is under way
        verdict = await e.call("siwx.verify")
        assert verdict["ok"] is True, verdict
        assert e.h.model.siwx.has_session and e.h.model.siwx.token
        assert e.h.model.siwx.session_address == f"eip155:31337:{DEV_ADDRESS}"
        account = e.h.model.accounts.get("eip155")
        assert account.status == "connected" and account.connector_id == "walletConnect"
        assert not e.h.model.modal.open
        assert [s.message for s in await stored_sessions(e)] == [result["siwx"]["message"]]

        assert "SIWXSignMessage" not in e.views
        assert len(wallet_events(wallet, "authenticate")) == 1
        assert wallet_events(wallet, "proposal") == [] and wallet_events(wallet, "approved") == []
        assert [r["method"] for r in wallet_events(wallet, "request")] == []
        ok, _, _, _ = await e.rt.run(SID, {"method": "wallet_switchEthereumChain",
                                           "params": [{"chainId": hex(31338)}]})
        assert ok and [r["method"] for r in wallet_events(wallet, "request")] == ["wallet_switchEthereumChain"]


async def test_a_wallet_without_one_click_auth_connects_by_the_proposal_then_signs_in_by_personal_sign(
        devchain: ChainsInfo, tmp_path: Path) -> None:
    """Rule: a wallet that does not answer wc_sessionAuthenticate approves the fallback proposal
    on the same pairing; the visitor then signs in as with any wallet (SIWXSignMessage,
    personal_sign over the session), verified by the engine."""
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls, auth=False) as wallet, \
            engine(tmp_path, relay.url) as e:
        await wallet.send(cmd="pair", uri=await e.pair())
        ok, result, _, _ = await e.run("wc_approval")
        assert ok and "siwx" not in result, result
        assert len(wallet_events(wallet, "proposal")) == 1 and wallet_events(wallet, "authenticate") == []
        await e.call("siwx.sessions")
        e.h.expect(view="SIWXSignMessage")
        e.h.press("siwx/sign")
        await e.call("siwx.nonce")
        ok, signature, _, _ = await e.run("personal_sign")
        assert ok, signature
        verdict = await e.call("siwx.verify")
        assert verdict["ok"] is True, verdict
        assert e.h.model.siwx.has_session and not e.h.model.modal.open
        assert [r["method"] for r in wallet_events(wallet, "request")] == ["personal_sign"]
        assert len(await stored_sessions(e)) == 1


async def test_a_rejected_authenticate_request_shows_connection_declined(
        devchain: ChainsInfo, tmp_path: Path) -> None:
    """Rule: the wallet's rejection of the sign-in request (rejectSessionAuthenticate, 5000) is
    'Connection declined' with Try again, as a declined proposal; nothing is stored."""
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls, policy="reject") as wallet, \
            engine(tmp_path, relay.url) as e:
        await wallet.send(cmd="pair", uri=await e.pair())
        ok, _, code, _ = await e.run("wc_approval")
        assert not ok and code == 5000
        await wallet.expect("auth_rejected")
        e.h.expect(view="ConnectingWalletConnect", text="Connection declined", node="wc/retry")
        assert e.h.model.accounts.get("eip155").status == "disconnected"
        assert await stored_sessions(e) == []
        e.h.press("wc/retry")
        assert e.h.pending_calls("siwx.nonce")  # Try again: a fresh nonce, then a fresh pairing


@pytest.mark.parametrize("tamper", ["forge", "wrong_nonce", "expired", "malformed"])
async def test_a_forged_mismatched_or_expired_cacao_is_refused_and_nothing_is_stored(
        devchain: ChainsInfo, tmp_path: Path, tamper: str, caplog: pytest.LogCaptureFixture) -> None:
    """Rule: a CACAO signed by another key, for another nonce, already expired, or a malformed
    answer is refused by the engine with one log line and no traceback: no WalletConnect session
    and no sign-in stored; the visitor sees 'Sign-in could not be verified' with Try again, and
    trying again with an honest wallet answer connects and signs in."""
    caplog.set_level(logging.INFO)
    async with running_relay() as relay, \
            wallet_peer(relay.url, devchain.rpc_urls, auth_tamper=tamper) as wallet, \
            engine(tmp_path, relay.url) as e:
        await wallet.send(cmd="pair", uri=await e.pair())
        ok, _, code, message = await e.run("wc_approval")
        assert not ok and code == 7000, (code, message)
        e.h.expect(view="ConnectingWalletConnect", text=REFUSED, node="wc/retry")
        assert e.h.model.accounts.get("eip155").status == "disconnected" and not e.h.model.siwx.has_session
        assert await stored_sessions(e) == []
        assert e.rt._visitors[SID].client.state.sessions == {}
        assert await e.store.load(store_key(SID), 0) is None or \
            e.rt._visitors[SID].client.state.sessions == {}
        refusals = [r for r in caplog.records if "authenticate answer refused" in r.getMessage()]
        assert len(refusals) == 1 and refusals[0].exc_info is None
        assert not [r for r in caplog.records if r.exc_info and r.name.startswith("modalcore")]

        await wallet.send(cmd="auth_tamper", value="none")
        await wallet.expect("auth_tamper")
        e.h.press("wc/retry")
        await wallet.send(cmd="pair", uri=await e.pair())
        ok, result, _, _ = await e.run("wc_approval")
        assert ok and "siwx" in result, result
        verdict = await e.call("siwx.verify")
        assert verdict["ok"] is True and e.h.model.siwx.has_session
        assert len(await stored_sessions(e)) == 1


async def test_a_one_click_approval_while_the_engine_restarts_still_signs_in(devchain: ChainsInfo) -> None:
    """Rule: the authenticate request in flight (its key, its payload) is stored with the pairing;
    an engine restarted between the QR code and the wallet's approval reads it back, resubscribes
    the answer's topic, and the CACAO kept by the relay's mailbox still connects and signs in."""
    store = MemoryStore()
    payload = build_payload(chains=NETWORKS, methods=EIP155_METHODS, domain="app.example", aud="https://app.example",
                            nonce="Restart0Nonce1", now_ms=time.time_ns() // 1_000_000, statement="Sign in")
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        first = WalletConnectRuntime(relay.url, metadata=DAPP, secret=b"restart", store=store)
        ok, pairing, _, _ = await first.run(SID, {"method": "wc_pair", "networks": NETWORKS,
                                                  "auth": payload.model_dump(exclude_none=True)})
        assert ok
        await first.close()  # the engine goes down with the QR code on screen
        await wallet.send(cmd="pair", uri=pairing["uri"])
        await wallet.expect("auth_approved")
        second = WalletConnectRuntime(relay.url, metadata=DAPP, secret=b"restart", store=store)
        try:
            ok, approved, _, message = await second.run(SID, {"method": "wc_approval"})
            assert ok, message
            assert approved["accounts"][0] == DEV_ADDRESS
            assert "Nonce: Restart0Nonce1" in approved["siwx"]["message"]
        finally:
            await second.close()
