"""renderer/demo/devwallet.ts in Debian's Chromium against the real dev chains.

The page is served from another port than the nodes (as the engine serves the demo), so these
tests also prove that the nodes' CORS answers let the page call them directly.
"""

from __future__ import annotations

import functools
import http.server
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data

from modalcore_testing.chromium import CHROMIUM, LOOPBACK_ONLY, sync_chromium
from modalcore_dev.devchain.nodes import REPO_ROOT
from modalcore_dev.devchain.pytest_plugin import ChainsInfo

pytestmark = [pytest.mark.chain, pytest.mark.e2e]

ESBUILD = REPO_ROOT / "renderer" / "node_modules" / ".bin" / "esbuild"
SOURCE = REPO_ROOT / "renderer" / "demo" / "devwallet.ts"
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Dev Wallet test</title></head>
<body><p>Dev Wallet — test asset</p><script src="devwallet.js"></script>
<script>
  window.announced = [];
  window.walletEvents = [];
  window.addEventListener('eip6963:announceProvider', (e) => {
    window.announced.push(e.detail);
    if (window.announced.length === 1) {
      for (const name of ['accountsChanged', 'chainChanged', 'disconnect']) {
        e.detail.provider.on(name, (data) => window.walletEvents.push([name, data]));
      }
    }
  });
  DW.installDevWallet({chains: CHAINS});
  window.dispatchEvent(new Event('eip6963:requestProvider'));
</script></body></html>"""

# Runs a request in the page; resolves to {ok, result} or {ok: false, code, message}.
REQUEST = """async ([method, params]) => {
  const provider = window.announced[0].provider;
  try { return {ok: true, result: await provider.request({method, params})}; }
  catch (e) { return {ok: false, code: e.code, message: e.message}; }
}"""

OWNER = Account.from_key("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80").address
ACCOUNT_1 = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
# The wallet reports addresses as the node does: lower-case, like MetaMask.
OWNER_LC, ACCOUNT_1_LC = OWNER.lower(), ACCOUNT_1.lower()


@pytest.fixture(scope="module")
def site(devchains: ChainsInfo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # `make test` installs both; a missing one is a broken setup, not a reason to skip.
    assert CHROMIUM.exists(), "needs /usr/bin/chromium (make chromium)"
    assert ESBUILD.exists(), "needs renderer/node_modules (make renderer)"
    root = tmp_path_factory.mktemp("devwallet-site")
    subprocess.run(
        [str(ESBUILD), str(SOURCE), "--bundle", "--format=iife", "--global-name=DW",
         f"--outfile={root / 'devwallet.js'}", "--log-level=warning"],
        check=True, timeout=60,
    )
    chains = ",".join(
        f'{{"chainId": {cid}, "rpcUrl": "{url}", "name": "Dev Chain {cid}"}}'
        for cid, url in sorted(devchains.rpc_urls.items())
    )
    (root / "index.html").write_text(PAGE.replace("CHAINS", f"[{chains}]"))
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def browser(site: str) -> Iterator[Any]:
    with sync_chromium(LOOPBACK_ONLY) as b:
        yield b


@pytest.fixture
def page(browser: Any, site: str, devchain: ChainsInfo) -> Iterator[Any]:
    context = browser.new_context()
    pg = context.new_page()
    pg.goto(site)
    pg.wait_for_function("window.announced.length > 0")
    try:
        yield pg
    finally:
        context.close()


def call(page: Any, method: str, params: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(REQUEST, [method, params])
    return result


def ok(page: Any, method: str, params: Any = None) -> Any:
    answer = call(page, method, params)
    if not answer["ok"]:
        raise AssertionError(f"{method} failed: {answer}")
    return answer["result"]


def events(page: Any) -> list[list[Any]]:
    found: list[list[Any]] = page.evaluate("window.walletEvents")
    return found


def test_announces_itself_through_eip6963(page: Any) -> None:
    info = page.evaluate("window.announced[0].info")
    assert info["name"] == "Dev Wallet"
    assert info["rdns"] == "dev.modalcore.devwallet"
    assert info["icon"].startswith("data:image/svg+xml;base64,")
    assert len(info["uuid"]) == 36
    # every eip6963:requestProvider is answered, always with the same provider and uuid
    again = page.evaluate("""() => { window.dispatchEvent(new Event('eip6963:requestProvider'));
        const a = window.announced; const last = a[a.length - 1];
        return [a.length, last.provider === a[0].provider, last.info.uuid === a[0].info.uuid]; }""")
    assert again[0] >= 2 and again[1] and again[2]
    assert page.evaluate("window.devWallet.label") == "Dev Wallet — test asset"


def test_connect_then_remembered_after_reload(page: Any) -> None:
    assert ok(page, "eth_accounts") == []
    assert ok(page, "eth_chainId") == "0x7a69"
    assert ok(page, "eth_requestAccounts") == [OWNER_LC]
    assert events(page) == [["accountsChanged", [OWNER_LC]]]
    assert ok(page, "eth_accounts") == [OWNER_LC]
    page.reload()
    page.wait_for_function("window.announced.length > 0")
    assert ok(page, "eth_accounts") == [OWNER_LC]  # no prompt after a reload, like a real wallet
    assert ok(page, "eth_chainId") == "0x7a69"


def test_reads_are_forwarded_to_the_node(page: Any, devchain: ChainsInfo) -> None:
    balance = ok(page, "eth_getBalance", [OWNER, "latest"])
    with devchain.rpc(31337) as rpc:
        assert int(balance, 16) == rpc.balance(OWNER)
    assert int(ok(page, "eth_blockNumber"), 16) > 0


def test_signing_needs_a_connection(page: Any) -> None:
    answer = call(page, "personal_sign", ["0x68656c6c6f", OWNER])
    assert answer["ok"] is False and answer["code"] == 4100


def test_personal_sign_recovers_to_the_account(page: Any) -> None:
    ok(page, "eth_requestAccounts")
    message = "Sign in to the demo\nNonce: 42"
    signature = ok(page, "personal_sign", ["0x" + message.encode().hex(), OWNER])
    assert Account.recover_message(encode_defunct(text=message), signature=signature) == OWNER
    # a plain-text message and the reversed [address, message] order work as well
    signature2 = ok(page, "personal_sign", [OWNER, message])
    assert Account.recover_message(encode_defunct(text=message), signature=signature2) == OWNER


def test_sign_typed_data_v4_recovers_to_the_account(page: Any) -> None:
    ok(page, "eth_requestAccounts")
    typed = {
        "types": {
            "EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
            "Mail": [{"name": "contents", "type": "string"}],
        },
        "primaryType": "Mail",
        "domain": {"name": "Demo", "chainId": 31337},
        "message": {"contents": "hello"},
    }
    signature = ok(page, "eth_signTypedData_v4", [OWNER, typed])
    signable = encode_typed_data(full_message=typed)
    assert Account.recover_message(signable, signature=signature) == OWNER
    wrong_chain = {**typed, "domain": {"name": "Demo", "chainId": 1}}
    assert call(page, "eth_signTypedData_v4", [OWNER, wrong_chain])["code"] == -32602


def test_send_transaction_moves_tokens(page: Any, devchain: ChainsInfo) -> None:
    ok(page, "eth_requestAccounts")
    tusd = devchain.token(31337, "TUSD")["address"]
    receiver = devchain.chain(31337)["accounts"][4]
    from modalcore_dev.devchain.rpc import encode_call

    data = encode_call("transfer(address,uint256)", [receiver, 3_000_000])
    with devchain.rpc(31337) as rpc:
        before = rpc.erc20_balance(tusd, receiver)
        tx_hash = ok(page, "eth_sendTransaction", [{"from": OWNER, "to": tusd, "data": data}])
        receipt = rpc.wait_receipt(tx_hash)
        assert receipt["from"].lower() == OWNER.lower()
        assert rpc.erc20_balance(tusd, receiver) == before + 3_000_000
    other = call(page, "eth_sendTransaction", [{"from": ACCOUNT_1, "to": receiver, "value": "0x1"}])
    assert other["code"] == 4100


def test_reject_next_gives_4001_once(page: Any) -> None:
    page.evaluate("window.devWallet.setRejectNext(true)")
    assert ok(page, "eth_chainId") == "0x7a69"  # reads are not prompts
    answer = call(page, "eth_requestAccounts")
    assert answer == {"ok": False, "code": 4001, "message": "User rejected the request."}
    assert ok(page, "eth_accounts") == []
    assert ok(page, "eth_requestAccounts") == [OWNER_LC]
    page.evaluate("window.devWallet.setRejectNext(true)")
    assert call(page, "personal_sign", ["0x00", OWNER])["code"] == 4001


def test_switch_chain_and_unknown_chain(page: Any) -> None:
    ok(page, "eth_requestAccounts")
    assert ok(page, "wallet_switchEthereumChain", [{"chainId": "0x7a6a"}]) is None
    assert ok(page, "eth_chainId") == "0x7a6a"
    assert ["chainChanged", "0x7a6a"] in events(page)
    unknown = call(page, "wallet_switchEthereumChain", [{"chainId": "0x1"}])
    assert unknown["ok"] is False and unknown["code"] == 4902
    assert ok(page, "eth_chainId") == "0x7a6a"


def test_add_chain_then_switch_to_it(page: Any, devchain: ChainsInfo) -> None:
    ok(page, "eth_requestAccounts")
    params = [{"chainId": "0x7a6b", "chainName": "Dev Chain 31339",
               "rpcUrls": [devchain.rpc_urls[31337]],
               "nativeCurrency": {"name": "Ether", "symbol": "ETH", "decimals": 18}}]
    assert ok(page, "wallet_addEthereumChain", params) is None
    assert ok(page, "eth_chainId") == "0x7a6b"
    ok(page, "wallet_switchEthereumChain", [{"chainId": "0x7a69"}])
    assert ok(page, "wallet_switchEthereumChain", [{"chainId": "0x7a6b"}]) is None
    chains = page.evaluate("window.devWallet.getState().chains.map(c => c.chainId)")
    assert 31339 in chains


def test_wallet_side_account_and_chain_changes(page: Any) -> None:
    ok(page, "eth_requestAccounts")
    assert page.evaluate("window.devWallet.setAccountIndex(1)") == ACCOUNT_1_LC
    assert ["accountsChanged", [ACCOUNT_1_LC]] in events(page)
    assert ok(page, "eth_accounts") == [ACCOUNT_1_LC]
    page.evaluate("window.devWallet.setChain(31339)")  # a chain nobody asked for
    assert ok(page, "eth_chainId") == "0x7a6b"
    page.evaluate("window.devWallet.emitChainChanged('0x7a6a')")
    assert ok(page, "eth_chainId") == "0x7a6a"
    assert [e for e in events(page) if e[0] == "chainChanged"] == [
        ["chainChanged", "0x7a6b"], ["chainChanged", "0x7a6a"],
    ]
    page.evaluate("window.devWallet.setChain(424242)")
    assert call(page, "eth_blockNumber")["code"] == 4901  # no RPC for that chain


def test_wallet_side_disconnect(page: Any) -> None:
    ok(page, "eth_requestAccounts")
    page.evaluate("window.devWallet.disconnect()")
    assert ok(page, "eth_accounts") == []
    assert events(page)[-1] == ["accountsChanged", []]
    page.evaluate("window.devWallet.emitDisconnect()")
    last = page.evaluate("(() => { const e = window.walletEvents.at(-1); return [e[0], e[1].code]; })()")
    assert last == ["disconnect", 4900]


def test_provider_listeners_can_be_removed(page: Any) -> None:
    count = page.evaluate("""async () => {
        const p = window.devWallet.provider; let n = 0; const f = () => { n += 1; };
        p.on('chainChanged', f); window.devWallet.setChain(31338);
        p.removeListener('chainChanged', f); window.devWallet.setChain(31337);
        return n; }""")
    assert count == 1

