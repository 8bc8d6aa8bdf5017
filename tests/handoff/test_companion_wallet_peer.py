"""The phone's own wallet app, end to end on a real engine (issue 44 item 1: "a desktop visitor
without a wallet extension approves on the phone's wallet"): the engine with its WalletConnect
client on the local relay (in its own process), the real wallet peer (the official sign-client
under Node, walletpeer/wallet.mjs) playing the wallet app on the phone.

The computer's session has no account: the modal's Yes links the phone (slices/handoff.py). The
phone's modal (a companion socket) picks MetaMask from All Wallets; its Open is the wallet app's
deep link with the engine's pairing, sent to the phone only; the wallet pairs with that URI and
approves; the host page gets one account event (connected, the wallet's address), and the phone
stays linked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from modalcore.server.config import dev_networks
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.server.companion import signed_text
from modalcore_dev.devmail import LocalSmtpServer
from modalcore_dev.walletconnect_relay import relay_process
from modalcore_testing import Client, RunningServer, find_node

from ..embedded.device import frame_headers
from ..embedded.mail_engine import mail_engine
from ..embedded.test_approval_credential import CLOCK, mail
from ..walletconnect.conftest import DEV_ADDRESS, WalletPeer, wallet_peer
from .test_companion_routes import Tree, _companion_url, _nonce
from .test_handoff_routes import _linked_with_no_account

__all__ = ["mail"]

OPTS = {"networks": ["eip155:31337"], "features": {"continueOnPhone": True}}
PHONE_ENV = {"mobile": True, "platform": "ios", "width": 390}
WAIT = 30.0
RECEIVER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"  # Hardhat account #1


@pytest.fixture(scope="module")
def relay_url() -> Iterator[str]:
    """The local relay in its own process (an in-loop relay is not reached by the engine's thread
    in time), as `make run` starts it."""
    with relay_process() as url:
        yield url


@pytest.fixture(scope="module")
def wc_engine(tmp_path_factory: pytest.TempPathFactory, mail: LocalSmtpServer, relay_url: str) -> Iterator[RunningServer]:
    folder: Path = tmp_path_factory.mktemp("wallet-peer")
    with mail_engine(folder, mail, clock=CLOCK, walletconnect={"relay_url": relay_url}) as running:
        yield running


@pytest.fixture(scope="module")
def chain_engine(tmp_path_factory: pytest.TempPathFactory, mail: LocalSmtpServer, relay_url: str,
                 devchains: ChainsInfo) -> Iterator[RunningServer]:
    """The same engine on the dev chains (their RPC, balances and tokens)."""
    folder: Path = tmp_path_factory.mktemp("wallet-peer-chain")
    with mail_engine(folder, mail, clock=CLOCK, walletconnect={"relay_url": relay_url},
                     networks=dev_networks(devchains.rpc_urls, devchains.deployment)) as running:
        yield running


def _accounts(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["data"] for f in frames if f["t"] == "host_event" and f.get("kind") == "account"]


async def _phone_press(phone: Client, tree: Tree, node: str, wait_for: str) -> list[dict[str, Any]]:
    """A press on the phone's modal; its frames until `wait_for` is in the phone's tree."""
    await phone.intent(node, "press", {})
    frames: list[dict[str, Any]] = []
    while find_node(tree.wire, wait_for) is None:
        got = await phone.recv_until(lambda f: f["t"] in ("patch", "snapshot", "effect"), timeout=WAIT)
        tree.take(got)
        frames += got
    return frames


@asynccontextmanager
async def _connected_on_the_phone(engine: RunningServer, relay_url: str,
                                  rpc_urls: dict[int, str]) -> AsyncIterator[tuple[Client, Client, Tree, WalletPeer]]:
    """The computer's session with no account links the phone by the modal's Yes; the phone's
    modal opens MetaMask's deep link; the wallet peer pairs with its URI and approves. Yields the
    computer's socket, the phone's socket and tree, and the wallet, once the host page got its one
    connected account event."""
    async with engine.client() as client, httpx.AsyncClient(base_url=engine.http_url, timeout=10) as http:
        phone_key, link = await _linked_with_no_account(client, http, OPTS)

        given = await _nonce(http, link, phone_key, frame_headers(engine.http_url))
        assert given.status_code == 200, given.text
        session, nonce = given.json()["session"], given.json()["nonce"]
        async with Client.open(_companion_url(engine), origin=engine.http_url) as phone:
            frames = await phone.join(companion={"session": session, "public_key": phone_key.spki, "nonce": nonce,
                                                 "signature": phone_key.sign(signed_text(session, nonce))},
                                      env=PHONE_ENV, opts={}, wallets=[])
            tree = Tree()
            tree.take(frames)
            assert tree.wire is not None and tree.wire["p"]["view"] == "Connect"

            # the phone picks MetaMask (the engine's own directory) and presses Open
            await _phone_press(phone, tree, "connect/all-wallets", "all/w/metamask")
            await _phone_press(phone, tree, "all/w/metamask", "wallet/wc/mobile")
            while (find_node(tree.wire, "wallet/wc/mobile") or {}).get("p", {}).get("disabled"):
                tree.take(await phone.recv_until(lambda f: f["t"] == "patch", timeout=WAIT))  # the pairing's URI
            seen = len(client.frames)
            await phone.intent("wallet/wc/mobile", "press", {})
            opened = (await phone.recv_until(lambda f: f["t"] == "effect" and f.get("kind") == "open_url",
                                             timeout=WAIT))[-1]["req"]["url"]
            assert opened.startswith("metamask://wc?uri=wc%3A")
            assert not [f for f in client.frames[seen:] if f["t"] == "effect"], "the computer was asked to open it"

            # the wallet app on the phone follows the deep link: it pairs and approves
            uri = parse_qs(urlsplit(opened).query)["uri"][0]
            async with wallet_peer(relay_url, rpc_urls) as wallet:
                await wallet.send(cmd="pair", uri=uri)
                await wallet.expect("approved", timeout=WAIT)
                got = await client.recv_until(lambda f: any(a.get("isConnected") for a in _accounts([f])),
                                              timeout=WAIT)
                connected = [a for a in _accounts(got) if a.get("isConnected")]
                assert len(connected) == 1 and connected[0]["address"] == DEV_ADDRESS
                assert connected[0]["walletInfo"]["type"] == "WALLET_CONNECT"
                yield client, phone, tree, wallet


async def test_rule_the_phones_wallet_app_connects_a_session_that_had_no_account(
        wc_engine: RunningServer, relay_url: str) -> None:
    async with _connected_on_the_phone(wc_engine, relay_url, {31337: "http://127.0.0.1:9"}) as (client, phone, tree, _):
        more = await client.quiet(0.5)
        assert not [a for a in _accounts(more) if a.get("isConnected")], "a second account event"
        # the phone stays linked: its modal moves to the account as the computer's does
        while tree.wire is None or tree.wire["p"]["view"] != "Account":
            tree.take(await phone.recv_until(lambda f: f["t"] in ("patch", "snapshot"), timeout=WAIT))
        assert not [f for f in phone.frames if f["t"] == "host_event"], "a host event reached the phone"


def _balance(chains: ChainsInfo, address: str) -> int:
    answer = httpx.post(chains.rpc_urls[31337], json={"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance",
                                                      "params": [address, "latest"]}).json()
    return int(answer["result"], 16)


def _texts(tree: Tree) -> str:
    return str(tree.wire)


async def _press(client: Client, tree: Tree, node: str, act: str = "press", args: dict[str, Any] | None = None) -> None:
    """An intent of the computer's page once `node` is drawn (and not disabled) in its tree."""
    def ready() -> bool:
        found = find_node(tree.wire, node)
        return found is not None and not found.get("p", {}).get("disabled")
    await tree.follow(client, ready, WAIT)
    await client.intent(node, act, args or {})


@pytest.mark.chain
async def test_rule_a_send_started_on_the_computer_is_approved_in_the_phones_wallet_app(
        chain_engine: RunningServer, relay_url: str, devchain: ChainsInfo) -> None:
    """The send is asked of the wallet app over WalletConnect (it signs and broadcasts to the
    Hardhat node); both screens then say "Transaction sent"."""
    async with _connected_on_the_phone(chain_engine, relay_url, devchain.rpc_urls) as (client, phone, on_phone, wallet):
        before = _balance(devchain, RECEIVER)
        on_computer = Tree()
        on_computer.take(client.frames)
        await client.intent("host", "open", {})  # the modal closed once the wallet connected
        await _press(client, on_computer, "account/feature/send")
        await _press(client, on_computer, "send/token")
        await _press(client, on_computer, "send/token/native")
        await _press(client, on_computer, "send/amount", "change", {"value": "1.5"})
        await _press(client, on_computer, "send/receiver", "change", {"value": RECEIVER})
        await _press(client, on_computer, "send/preview")
        await _press(client, on_computer, "send-preview/send")
        request = await wallet.expect("request", timeout=WAIT)
        assert request["method"] == "eth_sendTransaction"
        await wallet.expect("responded", timeout=WAIT)
        await on_computer.follow(client, lambda: "Transaction sent" in _texts(on_computer), WAIT)
        await on_phone.follow(phone, lambda: "Transaction sent" in _texts(on_phone), WAIT)
        assert _balance(devchain, RECEIVER) == before + 15 * 10**17, "the wallet app did not send it"
