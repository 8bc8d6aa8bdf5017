"""The engine's WalletConnect runtime (runtime/walletconnect.py) against the local relay, the real
wallet peer (the official sign-client under Node) and Hardhat: the `walletconnect` effects a
session's slices send, answered as a browser wallet's would be; server-owned sessions kept in
the store encrypted with the operator's secret and resumed after an engine restart."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.core.msg import Msg
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.runtime.walletconnect import WalletConnectRuntime, store_key
from modalcore.slices.wallet_events import WalletChainChanged, WalletDisconnected
from modalcore.store.memory import MemoryStore
from modalcore_dev.walletconnect_relay import running_relay

from .conftest import DAPP, DEV_ADDRESS, WAIT, wallet_peer

pytestmark = pytest.mark.chain
NETWORKS = ["eip155:31337", "eip155:31338"]
RECIPIENT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
SECRET = b"operator-secret-for-tests"
SID = "session-wc-1"


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[str, Msg]] = []

    def __call__(self, session_id: str, msg: Msg) -> None:
        self.messages.append((session_id, msg))

    async def until(self, check: Callable[[Msg], bool]) -> Msg:
        async def wait() -> Msg:
            while True:
                for _, msg in self.messages:
                    if check(msg):
                        return msg
                await asyncio.sleep(0.02)
        return await asyncio.wait_for(wait(), WAIT)


def runtime(url: str, store: MemoryStore, inbox: Inbox, secret: bytes = SECRET) -> WalletConnectRuntime:
    return WalletConnectRuntime(url, metadata=DAPP, secret=secret, store=store, deliver=inbox)


async def ok(rt: WalletConnectRuntime, method: str, params: Any = None, **req: Any) -> Any:
    success, result, code, message = await rt.run(SID, {"method": method, "params": params, **req})
    assert success, f"{method}: {code} {message}"
    return result


async def test_pair_sign_send_switch_and_delete_by_the_wallet(devchain: ChainsInfo) -> None:
    """Rule: the engine pairs as the dApp (the URI a wallet scans), answers the account and the
    chain from the session, routes personal_sign and eth_sendTransaction to the wallet (one
    transaction on chain), switches chains, and a wallet-side delete reaches the session."""
    store, inbox = MemoryStore(), Inbox()
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        rt = runtime(relay.url, store, inbox)
        try:
            pairing = await ok(rt, "wc_pair", networks=NETWORKS)
            assert pairing["uri"].startswith("wc:") and isinstance(pairing["expiry"], int)
            await wallet.send(cmd="pair", uri=pairing["uri"])
            approved = await ok(rt, "wc_approval")
            assert approved["accounts"] == [DEV_ADDRESS] and approved["chain"] == "eip155:31337"
            assert approved["peer"]["name"] == "Modalcore Test Wallet"
            assert await ok(rt, "eth_accounts") == [DEV_ADDRESS]
            assert await ok(rt, "eth_chainId") == hex(31337)

            message = "Sign in to modalcore"
            signature = await ok(rt, "personal_sign", ["0x" + message.encode().hex(), DEV_ADDRESS])
            assert Account.recover_message(encode_defunct(text=message), signature=signature) == DEV_ADDRESS

            with devchain.rpc(31337) as rpc:
                nonce = rpc.nonce(DEV_ADDRESS)
            tx_hash = await ok(rt, "eth_sendTransaction", [{"from": DEV_ADDRESS, "to": RECIPIENT, "value": hex(10**16)}])
            with devchain.rpc(31337) as rpc:
                assert rpc.wait_receipt(tx_hash)["status"] == "0x1"
                assert rpc.nonce(DEV_ADDRESS) == nonce + 1
            assert [e["method"] for e in wallet.events if e["event"] == "request"].count("eth_sendTransaction") == 1

            assert await ok(rt, "wallet_switchEthereumChain", [{"chainId": hex(31338)}]) is None
            assert await ok(rt, "eth_chainId") == hex(31338)
            await inbox.until(lambda m: isinstance(m, WalletChainChanged) and m.chain_id == hex(31338))
            success, _, code, _ = await rt.run(SID, {"method": "wallet_switchEthereumChain",
                                                     "params": [{"chainId": hex(1)}]})
            assert not success and code == 4902

            await wallet.send(cmd="delete")
            await inbox.until(lambda m: isinstance(m, WalletDisconnected) and m.connector == "walletConnect")
            success, _, code, _ = await rt.run(SID, {"method": "eth_accounts"})
            assert not success and code == 4900
        finally:
            await rt.close()


async def test_a_declined_proposal_and_a_rejected_request_carry_the_wallets_code(devchain: ChainsInfo) -> None:
    """Rule: a rejection (5000) comes back as the effect's error code, as for injected wallets;
    a session whose host left is deleted at the wallet and forgotten."""
    store, inbox = MemoryStore(), Inbox()
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls, policy="reject") as wallet:
        rt = runtime(relay.url, store, inbox)
        try:
            pairing = await ok(rt, "wc_pair", networks=NETWORKS)
            await wallet.send(cmd="pair", uri=pairing["uri"])
            success, _, code, _ = await rt.run(SID, {"method": "wc_approval"})
            assert not success and code == 5000
            await wallet.send(cmd="policy", value="approve")
            pairing = await ok(rt, "wc_pair", networks=NETWORKS)
            await wallet.send(cmd="pair", uri=pairing["uri"])
            await ok(rt, "wc_approval")
            await wallet.send(cmd="policy", value="reject")
            success, _, code, _ = await rt.run(SID, {"method": "personal_sign", "params": ["0x68", DEV_ADDRESS]})
            assert not success and code in (4001, 5000)
            # the host destroys the modal: the session is deleted at the wallet and in the store
            await rt.forget(SID)
            await wallet.expect("session_delete")
            assert await store.load(store_key(SID), 0) is None
        finally:
            await rt.close()


async def test_the_session_survives_an_engine_restart_and_is_encrypted_at_rest(devchain: ChainsInfo) -> None:
    """Rule: pairing and session keys live in the store sealed with the operator's secret; a new
    engine process (new runtime, same store and secret) continues the same WalletConnect session
    without pairing again; the dApp's delete (wallet_revokePermissions) reaches the wallet."""
    store, inbox = MemoryStore(), Inbox()
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        first = runtime(relay.url, store, inbox)
        try:
            pairing = await ok(first, "wc_pair", networks=NETWORKS)
            await wallet.send(cmd="pair", uri=pairing["uri"])
            await ok(first, "wc_approval")
            blob = await store.load(store_key(SID), 0)
            assert blob is not None
            sym_key = next(iter(first._visitors[SID].client.state.sessions.values())).sym_key
            assert sym_key.encode() not in blob and bytes.fromhex(sym_key) not in blob
            assert b"sessions" not in blob  # the whole state is sealed, not only the keys
        finally:
            await first.close()

        # an engine with another secret cannot read it (and drops it, with a log line)
        stranger = runtime(relay.url, MemoryStore(), inbox, secret=b"another secret")
        other_store = stranger.store
        assert other_store is not None
        await other_store.save(store_key(SID), blob, 0)
        try:
            success, _, code, _ = await stranger.run(SID, {"method": "eth_accounts"})
            assert not success and code == 4900
        finally:
            await stranger.close()

        second = runtime(relay.url, store, inbox)
        try:
            assert await ok(second, "eth_accounts") == [DEV_ADDRESS]
            signature = await ok(second, "personal_sign", ["0x" + b"after restart".hex(), DEV_ADDRESS])
            assert Account.recover_message(encode_defunct(text="after restart"), signature=signature) == DEV_ADDRESS
            assert len([e for e in wallet.events if e["event"] == "proposal"]) == 1  # paired once
            assert await ok(second, "wallet_revokePermissions", [{"eth_accounts": {}}]) is None
            await wallet.expect("session_delete")
        finally:
            await second.close()
        third = runtime(relay.url, store, inbox)  # nothing left to resume
        try:
            success, _, code, _ = await third.run(SID, {"method": "eth_accounts"})
            assert not success and code == 4900
        finally:
            await third.close()


async def test_a_wallet_that_approves_while_the_engine_restarts_still_connects(devchain: ChainsInfo) -> None:
    """Rule: the pairing and proposal are stored; an engine that restarted between showing the
    QR code and the wallet's approval reads them back, and the approval (kept by the relay's
    mailbox) connects the visitor."""
    store, inbox = MemoryStore(), Inbox()
    async with running_relay() as relay, wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        first = runtime(relay.url, store, inbox)
        pairing = await ok(first, "wc_pair", networks=NETWORKS)
        await first.close()  # the engine goes down with the QR code on screen
        await wallet.send(cmd="pair", uri=pairing["uri"])
        await wallet.expect("proposal")
        second = runtime(relay.url, store, inbox)
        try:
            approved = await ok(second, "wc_approval")
            assert approved["accounts"] == [DEV_ADDRESS]
            assert await ok(second, "eth_chainId") == hex(31337)
        finally:
            await second.close()
