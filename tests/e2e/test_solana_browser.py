"""Issue 18 in Chromium: the demo page's Solana Dev Wallet (a Wallet Standard wallet) found by
the bridge, connected, its SOL balance read from the local Solana dev chain, a SOL send signed
by the wallet and submitted by the engine, landing on the chain exact to the lamport."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from solders.hash import Hash
from solders.keypair import Keypair
from solders.signature import Signature

from modalcore.chains.catalog import SOLANA_LOCAL
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.rules.format import floor3
from modalcore.server.config import parse_config
from modalcore.siwx.domain.solana import SiwsMessage
from modalcore.siwx.backend.solana_verify import ed25519_valid
from modalcore_dev.solana_devchain.accounts import dev_keypair
from modalcore_dev.solana_devchain.network import solana_dev_network
from modalcore_dev.solana_devchain.process import SolanaDevchain
from modalcore.solana.transfers import sol_transfer_instructions, unsigned_transaction
from modalcore_testing import RunningServer

from .conftest import ACCOUNT_0, TIMEOUT_MS, Demo, engine_config, free_port, open_modal, serve, watch

pytestmark = [pytest.mark.e2e, pytest.mark.chain]

QUERY = f"?networks={SOLANA_LOCAL},eip155:31337"
WALLET = str(dev_keypair(0).pubkey())
FEE = 5000


@pytest.fixture(scope="module")
def solana_engine(devchains: ChainsInfo, solana_devchain: SolanaDevchain,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The demo composition of `make run`: the Hardhat networks and the local Solana dev chain."""
    folder: Path = tmp_path_factory.mktemp("e2e-solana")
    base = engine_config(devchains, folder).model_dump()
    base["networks"].update(solana_dev_network(solana_devchain.rpc_url))
    base.pop("base_dir", None)
    with serve(parse_config(base), free_port()) as running:
        yield running


@pytest.fixture
def solana_demo(request: pytest.FixtureRequest, browser: Any, solana_engine: RunningServer) -> Iterator[Demo]:
    """The demo page asking for the Solana network (and the query of a `demo_query` marker)."""
    marker = request.node.get_closest_marker("demo_query")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    demo = Demo(context, context.new_page(), solana_engine.http_url)
    watch(demo)
    demo.goto(QUERY + (f"&{marker.args[0]}" if marker else ""))
    demo.page.wait_for_function("window.solanaDevWallet !== undefined")
    try:
        yield demo
    finally:
        context.close()
    assert demo.errors == [], f"the page logged problems: {demo.errors}"


def lamports(url: str, address: str) -> int:
    """getBalance, read directly (Playwright's sync API holds this thread's event loop)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": [address]}
    return int(httpx.post(url, json=body, timeout=10).json()["result"]["value"])


def sol(value: int) -> str:
    return floor3(Decimal(value) / Decimal(10**9))


def test_connect_the_solana_dev_wallet_see_sol_and_send_it(
    solana_demo: Demo, solana_devchain: SolanaDevchain
) -> None:
    from playwright.sync_api import expect

    demo = solana_demo
    url = solana_devchain.rpc_url
    assert demo.eval("window.solanaDevWallet.address") == WALLET  # the same key as the dev chain's account 0
    before = lamports(url, WALLET)

    open_modal(demo)
    demo.wait_view("Connect").get_by_role("button", name="Solana Dev Wallet").click()
    demo.wait_host("account", lambda a: a.get("isConnected") is True)
    account_event = demo.host("account")
    assert account_event.get("address") == WALLET
    open_modal(demo)
    account = demo.wait_view("Account")
    expect(account).to_contain_text(f"{sol(before)} SOL")

    receiver = str(Keypair().pubkey())
    account.get_by_role("button", name="Send", exact=True).click()
    form = demo.wait_view("WalletSend")
    form.get_by_role("button", name="SOL").first.wait_for()  # Send opens on the native token
    form.get_by_role("textbox", name="Amount").fill("0.5")
    form.get_by_role("textbox", name="Receiver address").fill(receiver)
    form.get_by_role("button", name="Preview send").click()
    preview = demo.wait_view("WalletSendPreview")
    expect(preview).to_contain_text("Network fee<$0.01")  # getFeeForMessage: 5,000 lamports at SOL's price
    assert demo.eval("window.solanaDevWallet.requests.map((r) => r.method)") == ["standard:connect"]
    preview.get_by_role("button", name="Send", exact=True).click()

    assert demo.poll(lambda: lamports(url, receiver) == 500_000_000), "the transfer never landed"
    assert lamports(url, WALLET) == before - 500_000_000 - FEE
    methods = demo.eval("window.solanaDevWallet.requests.map((r) => r.method)")
    assert methods == ["standard:connect", "solana:signTransaction"]
    # behaviour.md §4: a Solana send's stack entry shows Account; the balance refreshes
    account = demo.wait_view("Account")
    expect(account).to_contain_text(f"{sol(before - 500_000_000 - FEE)} SOL")


def test_switch_between_a_solana_and_an_eip155_network(solana_demo: Demo) -> None:
    from playwright.sync_api import expect

    demo = solana_demo
    open_modal(demo)
    demo.wait_view("Connect").get_by_role("button", name="Solana Dev Wallet").click()
    demo.wait_host("account", lambda a: a.get("caipAddress") == f"{SOLANA_LOCAL}:{WALLET}")
    open_modal(demo)
    account = demo.wait_view("Account")
    account.get_by_role("button", name="Switch network").click()
    demo.wait_view("Networks").get_by_role("button", name="Hardhat", exact=True).click()
    # no eip155 account yet: Connect, and the EVM Dev Wallet connects it
    demo.wait_view("Connect").get_by_role("button", name=re.compile(r"^Dev Wallet")).click()
    demo.wait_host("account", lambda a: str(a.get("caipAddress", "")).lower() == f"eip155:31337:{ACCOUNT_0}")
    open_modal(demo)
    account = demo.wait_view("Account")
    expect(account).to_contain_text("ETH")
    account.get_by_role("button", name="Switch network").click()
    demo.wait_view("Networks").get_by_role("button", name="Solana Local", exact=True).click()
    demo.wait_host("account", lambda a: a.get("caipAddress") == f"{SOLANA_LOCAL}:{WALLET}")
    demo.wait_host("network", lambda n: n.get("caipNetworkId") == SOLANA_LOCAL)
    open_modal(demo)
    expect(demo.wait_view("Account")).to_contain_text("SOL")
    assert demo.wallet_requests("wallet_switchEthereumChain") == []  # a Solana network asks no EVM wallet


@pytest.mark.demo_query("siwx=required")
def test_sign_in_with_solana_with_the_dev_wallet(solana_demo: Demo) -> None:
    demo = solana_demo
    open_modal(demo)
    demo.wait_view("Connect").get_by_role("button", name="Solana Dev Wallet").click()
    sign = demo.wait_view("SIWXSignMessage")
    sign.get_by_role("button", name="Sign", exact=True).click()
    demo.wait_host("account", lambda a: a.get("isConnected") is True and a.get("caipAddress") == f"{SOLANA_LOCAL}:{WALLET}")
    siwx = demo.wait_host("siwx", lambda s: s.get("signedIn") is True)
    assert siwx["token"]
    methods = demo.eval("window.solanaDevWallet.requests.map((r) => r.method)")
    assert methods == ["standard:connect", "solana:signMessage"]


# The Wallet Standard way to reach a registered wallet: answer `wallet-standard:app-ready`.
WALLET_JS = """async () => {
  let found = null;
  window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: { register: (w) => {
    if (w.name === 'Solana Dev Wallet') found = w; return () => {}; } } }));
  return found;
}"""


def test_dev_wallet_sign_and_send_transaction_submits_to_the_dev_chain(
    solana_demo: Demo, solana_devchain: SolanaDevchain
) -> None:
    """solana:signAndSendTransaction signs, submits through its RPC (the engine's dev chain
    proxy) and returns the signature; the lamports land, exact to the fee."""
    demo = solana_demo
    url = solana_devchain.rpc_url
    body = {"jsonrpc": "2.0", "id": 1, "method": "getLatestBlockhash", "params": [{"commitment": "confirmed"}]}
    blockhash = httpx.post(url, json=body, timeout=10).json()["result"]["value"]["blockhash"]
    receiver = Keypair().pubkey()
    sender = dev_keypair(0).pubkey()
    tx = unsigned_transaction(sol_transfer_instructions(sender, receiver, 250_000_000), sender,
                              Hash.from_string(blockhash))
    before = lamports(url, WALLET)
    signature = demo.eval(f"""async (tx) => {{
      const wallet = await ({WALLET_JS})();
      await wallet.features['standard:connect'].connect();
      const [out] = await wallet.features['solana:signAndSendTransaction'].signAndSendTransaction(
        {{ transaction: new Uint8Array(tx), account: wallet.accounts[0], chain: 'solana:localnet' }});
      return Array.from(out.signature);
    }}""", list(bytes(tx)))
    assert len(signature) == 64
    sent = Signature(bytes(signature))
    assert sent.verify(sender, bytes(tx.message_data()))  # the wallet's Ed25519 signature of this message
    assert demo.poll(lambda: lamports(url, str(receiver)) == 250_000_000), "the transfer never landed"
    assert lamports(url, WALLET) == before - 250_000_000 - FEE
    status = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "getSignatureStatuses",
                                   "params": [[str(sent)]]}, timeout=10).json()["result"]["value"][0]
    assert status is not None and status["err"] is None  # the returned signature is the chain's
    methods = demo.eval("window.solanaDevWallet.requests.map((r) => r.method)")
    assert methods == ["standard:connect", "solana:signAndSendTransaction"]


def test_dev_wallet_sign_in_returns_a_siws_message_signed_by_its_account(solana_demo: Demo) -> None:
    """solana:signIn writes the input as a Sign-In With Solana message (the engine's parser reads
    it field for field), signs it with its Ed25519 key and names its account."""
    demo = solana_demo
    fields = {"domain": "example.com", "statement": "Sign in to the demo", "uri": "https://example.com/login",
              "version": "1", "chainId": SOLANA_LOCAL.split(":", 1)[1], "nonce": "abcdef123456",
              "issuedAt": "2026-11-23T05:00:00.000Z", "expirationTime": "2026-11-23T06:00:00.000Z",
              "requestId": "r-1", "resources": ["https://example.com/terms"]}
    out = demo.eval(f"""async (input) => {{
      const wallet = await ({WALLET_JS})();
      const before = wallet.accounts.length;
      const [out] = await wallet.features['solana:signIn'].signIn(input);
      return {{ connected: [before, wallet.accounts.length], address: out.account.address, message: new TextDecoder().decode(out.signedMessage),
                signature: Array.from(out.signature), type: out.signatureType }};
    }}""", fields)
    assert out["address"] == WALLET and out["type"] == "ed25519"
    assert out["connected"] == [0, 1]  # signing in connected the account
    message = SiwsMessage.parse(out["message"])
    assert (message.domain, message.address, message.statement, message.uri, message.chain_id, message.nonce,
            message.issued_at, message.expiration_time, message.request_id, message.resources) == (
        "example.com", WALLET, "Sign in to the demo", "https://example.com/login", fields["chainId"],
        "abcdef123456", fields["issuedAt"], fields["expirationTime"], "r-1", ("https://example.com/terms",))
    assert ed25519_valid(WALLET, out["message"], bytes(out["signature"]))
    assert not ed25519_valid(WALLET, out["message"].replace("demo", "dem0"), bytes(out["signature"]))
    # another account's address is refused, nothing signed
    other = str(Keypair().pubkey())
    error = demo.eval(f"""async (address) => {{
      const wallet = await ({WALLET_JS})();
      try {{ await wallet.features['solana:signIn'].signIn({{ address }}); return null; }}
      catch (e) {{ return e.code; }}
    }}""", other)
    assert error == 4100
