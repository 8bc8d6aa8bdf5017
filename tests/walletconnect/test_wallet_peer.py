"""End to end over the local relay with the real wallet: the official @walletconnect/sign-client
2.25.0 (Node) pairs with the engine's dApp sign client, signs with ethers over a Hardhat dev
account and broadcasts to the Hardhat node."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.walletconnect.domain.errors import ProposalRejected
from modalcore.walletconnect.backend.events import Event, SessionDeleted, SessionEvent, SessionExtended, SessionUpdated
from modalcore.walletconnect.backend.relay_client import RelayClient
from modalcore.walletconnect.backend.signclient import SignClient
from modalcore.walletconnect.backend.state import DappState

from .conftest import DAPP, DEV_ADDRESS, WAIT, dapp_on_relay, wallet_peer

pytestmark = pytest.mark.chain
NETWORKS = ["eip155:31337", "eip155:31338"]
RECIPIENT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"  # Hardhat account #2
CENT_ETH = 10**16


async def test_pair_approve_sign_and_send_exactly_once(devchain: ChainsInfo) -> None:
    """Rule: pair → approve → settle; personal_sign recovers to the wallet's account;
    eth_sendTransaction of 0.01 ETH lands on chain exactly once; session state is plain data."""
    events: list[Event] = []
    async with dapp_on_relay() as (relay, _, dapp), wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        dapp.on_event = events.append
        connection = await dapp.connect(NETWORKS)
        assert connection.uri.startswith("wc:") and "expiryTimestamp=" in connection.uri
        await wallet.send(cmd="pair", uri=connection.uri)
        proposal = await wallet.expect("proposal")
        assert proposal["optionalNamespaces"]["eip155"]["chains"] == NETWORKS
        session = await asyncio.wait_for(connection.approval, WAIT)
        assert session.accounts == [f"{c}:{DEV_ADDRESS}" for c in NETWORKS]
        assert session.peer is not None and session.peer.name == "Modalcore Test Wallet"
        assert DappState.model_validate_json(dapp.state.model_dump_json()) == dapp.state

        message = "Sign in to modalcore"
        signature = await dapp.request(session.topic, "eip155:31337", "personal_sign",
                                       ["0x" + message.encode().hex(), DEV_ADDRESS])
        assert Account.recover_message(encode_defunct(text=message), signature=signature) == DEV_ADDRESS

        with devchain.rpc(31337) as rpc:
            nonce_before, balance_before = rpc.nonce(DEV_ADDRESS), rpc.balance(RECIPIENT)
        tx_hash = await dapp.request(session.topic, "eip155:31337", "eth_sendTransaction",
                                     [{"from": DEV_ADDRESS, "to": RECIPIENT, "value": hex(CENT_ETH)}])
        with devchain.rpc(31337) as rpc:
            assert rpc.wait_receipt(tx_hash)["status"] == "0x1"
            assert rpc.nonce(DEV_ADDRESS) == nonce_before + 1
            assert rpc.balance(RECIPIENT) == balance_before + CENT_ETH
        assert [e["method"] for e in wallet.events if e["event"] == "request"].count("eth_sendTransaction") == 1

        typed = {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
                           "Mail": [{"name": "contents", "type": "string"}]},
                 "primaryType": "Mail", "domain": {"name": "modalcore", "chainId": 31337},
                 "message": {"contents": "hello"}}
        typed_signature = await dapp.request(session.topic, "eip155:31337", "eth_signTypedData_v4",
                                             [DEV_ADDRESS, json.dumps(typed)], expiry=int(time.time()) + 600)
        assert Account.recover_message(encode_typed_data(full_message=typed), signature=typed_signature) == DEV_ADDRESS

        assert await dapp.request(session.topic, "eip155:31337", "wallet_switchEthereumChain",
                                  [{"chainId": hex(31338)}]) is None
        await _until(lambda: any(isinstance(e, SessionEvent) and e.name == "chainChanged" and e.chain_id == "eip155:31338"
                                 for e in events))

        await dapp.ping(session.topic)
        expiry = await dapp.extend(session.topic)
        assert expiry >= session.expiry

        await wallet.send(cmd="event", name="accountsChanged", data=[DEV_ADDRESS], chainId="eip155:31337")
        await wallet.expect("emitted")
        await _until(lambda: any(isinstance(e, SessionEvent) and e.name == "accountsChanged" for e in events))
        await wallet.send(cmd="update")
        await wallet.expect("updated")
        assert any(isinstance(e, SessionUpdated) and e.session.topic == session.topic for e in events)
        events.clear()
        await wallet.send(cmd="extend")  # SDK 2.25 sends empty params: now + 7 days on both sides
        await wallet.expect("extended")
        assert [e.topic for e in events if isinstance(e, SessionExtended)] == [session.topic]


async def test_a_restarted_engine_continues_the_session_from_its_saved_state(
        devchain: ChainsInfo, caplog: pytest.LogCaptureFixture) -> None:
    """Rule: the saved state (plus the process's persisted relay identity) is all a new process
    needs: a new relay connection and a restored sign client answer through the same session,
    without pairing again and without replaying what the old process already handled."""
    async with dapp_on_relay() as (relay, client, dapp), wallet_peer(relay.url, devchain.rpc_urls) as wallet:
        connection = await dapp.connect(NETWORKS)
        await wallet.send(cmd="pair", uri=connection.uri)
        session = await asyncio.wait_for(connection.approval, WAIT)
        await wallet.expect("acknowledged")
        saved = dapp.state.model_dump_json()
        await client.close()  # the engine process stops

        caplog.clear()
        fresh = RelayClient(relay.url, client.identity, backoff=(0.05, 0.5))
        await fresh.start()
        try:
            restored = SignClient(fresh, DAPP, state=DappState.model_validate_json(saved))
            await restored.restore()
            signature = await restored.request(session.topic, "eip155:31338", "personal_sign",
                                               ["0x" + b"after restart".hex(), DEV_ADDRESS])
            assert Account.recover_message(encode_defunct(b"after restart"), signature=signature) == DEV_ADDRESS
            assert [e["event"] for e in wallet.events].count("proposal") == 1
            assert not [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
        finally:
            await fresh.close()


async def test_the_wallet_rejects_the_proposal(devchain: ChainsInfo) -> None:
    """Rule: a wallet's rejection reaches the dApp as a typed ProposalRejected (code 5000)."""
    async with dapp_on_relay() as (relay, _, dapp), \
            wallet_peer(relay.url, devchain.rpc_urls, policy="reject") as wallet:
        connection = await dapp.connect(NETWORKS)
        await wallet.send(cmd="pair", uri=connection.uri)
        await wallet.expect("rejected")
        with pytest.raises(ProposalRejected) as rejected:
            await asyncio.wait_for(connection.approval, WAIT)
        assert rejected.value.code == 5000
        assert dapp.state.sessions == {} and dapp.state.proposals == {}


async def test_deletes_in_both_directions(devchain: ChainsInfo) -> None:
    """Rule: a wallet-side delete ends the session on the dApp side (the wallet's delete-after
    policy: it answers one request, then deletes); a dApp-side delete reaches the wallet."""
    events: list[Event] = []
    async with dapp_on_relay() as (relay, _, dapp), \
            wallet_peer(relay.url, devchain.rpc_urls, delete_after=1) as wallet:
        dapp.on_event = events.append
        first = await dapp.connect(NETWORKS)
        await wallet.send(cmd="pair", uri=first.uri)
        session = await asyncio.wait_for(first.approval, WAIT)
        await wallet.expect("acknowledged")
        await dapp.request(session.topic, "eip155:31337", "personal_sign", ["0x00", DEV_ADDRESS])
        await wallet.expect("deleted")
        await _until(lambda: any(isinstance(e, SessionDeleted) and e.by_peer for e in events))
        assert session.topic not in dapp.state.sessions

        second = await dapp.connect(NETWORKS)
        await wallet.send(cmd="pair", uri=second.uri)
        session = await asyncio.wait_for(second.approval, WAIT)
        await wallet.expect("acknowledged")
        await dapp.disconnect(session.topic)
        deleted = await wallet.expect("session_delete")
        assert deleted["topic"] == session.topic and dapp.state.sessions == {}


async def _until(condition: object, timeout: float = WAIT) -> None:
    async def poll() -> None:
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)
    await asyncio.wait_for(poll(), timeout)
