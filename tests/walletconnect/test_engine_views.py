"""The WalletConnect connector in the engine, sans I/O (the Harness plays the runtime's answers
to `walletconnect` effects as runtime/walletconnect.py gives them): the Connect row, the QR
view, expiry, rejection, routing of every wallet request through the session, wallet events."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import segno

from modalcore.icons import wallet_mark
from modalcore import samples
from modalcore.core.cmds import Effect
from modalcore.enginetest import Harness
from modalcore.slices.wallet_events import WalletChainChanged, WalletDisconnected
from modalcore.views import logos
from modalcore.views.qrcode import encoded
from modalcore.walletconnect.backend.uri import PairingUri

ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
NETWORKS = ["eip155:31337", "eip155:31338"]
PEER = {"name": "Modalcore Test Wallet", "icon": "https://wallet.example/icon.png", "url": "https://wallet.example"}


def uri(n: int = 1, expiry: int = 240) -> str:
    return PairingUri(f"{n:02x}" * 32, "cd" * 32, expiry).format()


def harness(**options: Any) -> Harness:
    return Harness(options={"networks": NETWORKS, **options}, walletconnect=True)


def paired(h: Harness, expiry: int = 240) -> str:
    h.host("open")
    h.press("connect/wallet/walletConnect")
    if h.model.siwx.enabled:  # one-click sign-in: the engine issues the nonce before pairing
        h.settle_call("siwx.nonce", samples.siwx_nonce())
    link = uri(expiry=expiry)
    h.relay("wc_pair", {"uri": link, "expiry": expiry})
    return link


def connect(h: Harness) -> None:
    paired(h)
    h.relay("wc_approval", {"accounts": [ADDRESS.lower()], "chain": "eip155:31337", "peer": PEER})


def wc_effects(h: Harness) -> list[Effect]:
    """The commands the runtime would run on the WalletConnect session, not yet answered."""
    return [c for c in h.cmds if isinstance(c, Effect) and c.kind == "walletconnect"]


def matrix_of(node_props: dict[str, Any]) -> list[list[bool]]:
    n, bits = node_props["n"], node_props["bits"]
    flat = bin(int(bits, 16))[2:].zfill(len(bits) * 4)
    return [[flat[y * n + x] == "1" for x in range(n)] for y in range(n)]


def test_walletconnect_is_the_first_connector_tagged_qr_code() -> None:
    """Rule: behaviour.md §1 connector order starts with walletConnect; its row carries 'QR CODE'."""
    h = Harness(options={"networks": NETWORKS}, walletconnect=True,
                wallets=[{"uuid": "mm", "name": "MetaMask", "icon": "data:image/svg+xml,mm", "rdns": "io.metamask"}])
    h.host("open")
    rows = h.of_type("wallet-item")
    assert rows[0].id == "connect/wallet/walletConnect" and rows[0].p["tag"] == "QR CODE"
    assert rows[1].p["name"] == "MetaMask"
    h.press("connect/all-wallets")
    assert "all/wallet/walletConnect" not in h.ids()


def test_the_host_or_the_operator_can_turn_walletconnect_off() -> None:
    h = harness(enableWalletConnect=False)
    h.host("open")
    assert "connect/wallet/walletConnect" not in h.ids()
    h = Harness(options={"networks": NETWORKS})  # an engine without WalletConnect
    h.host("open")
    assert "connect/wallet/walletConnect" not in h.ids()


def test_the_qr_view_loads_then_draws_the_uri_encoded_by_the_engine() -> None:
    """Rule: a loading state until the URI exists; then the QR node's modules are the segno
    matrix of the `wc:` URI, and 'Copy link' copies that URI."""
    h = harness()
    h.host("open")
    h.press("connect/wallet/walletConnect")
    h.expect(view="ConnectingWalletConnect", node="wc/qr", no_text="Copy link")
    assert h.node("wc/qr").t == "skeleton"
    assert h.pending_relay("wc_pair").req["networks"] == NETWORKS
    link = uri()
    h.relay("wc_pair", {"uri": link, "expiry": 240})
    qr = h.node("wc/qr")
    assert qr.t == "qr"
    # WalletConnect's mark in the centre (as AppKit draws it), so level Q: the mark hides modules
    assert qr.p["image"] == logos.WALLETCONNECT
    expected = [[bool(m) for m in row] for row in segno.make_qr(link, error="q", boost_error=False).matrix_iter(border=0)]
    assert matrix_of(qr.p) == expected
    h.press("wc/copy")
    assert h.pending_effect("clipboard")["req"] == {"text": link}
    h.answer("clipboard", None)
    h.expect(text="Link copied")


def test_approval_connects_the_account_with_the_wallets_metadata() -> None:
    """Rule: approval sets the account and network as for any connector (balances follow);
    connectedWalletInfo comes from the wallet's metadata; walletConnect becomes recent."""
    h = harness()
    connect(h)
    account = h.model.accounts.get("eip155")
    assert account.status == "connected" and account.address == ADDRESS
    assert account.connector_id == "walletConnect"
    assert account.connected_wallet_info is not None and account.connected_wallet_info.name == "Modalcore Test Wallet"
    assert h.model.networks.active == "eip155:31337"
    assert h.model.connectors.recent[0] == "walletConnect"
    assert not h.model.modal.open
    assert h.pending_calls("balances")
    assert "wc:expiry" not in h.timers


def test_a_declined_proposal_shows_connection_declined_and_try_again_pairs_anew() -> None:
    """Rule: a wallet's rejection (5000) shows 'Connection declined' with Try again."""
    h = harness()
    paired(h)
    h.relay("wc_approval", code=5000, message="User rejected.")
    h.expect(view="ConnectingWalletConnect", text="Connection declined", node="wc/retry")
    h.press("wc/retry")
    assert h.pending_relay("wc_pair")


def test_an_expiring_pairing_is_replaced_by_a_fresh_uri() -> None:
    """Rule: pairing expiry 240,000 ms; within 10 s of it a fresh URI is shown."""
    h = harness()
    paired(h, expiry=240)
    due = h.timer_due("wc:expiry")
    assert due is not None and 230_000 <= due <= 240_000
    h.advance(due)
    h.relay("wc_pair", {"uri": uri(2, 480), "expiry": 480})
    assert h.model.walletconnect.uri == uri(2, 480)
    # the old pairing's late answer is ignored
    assert h.model.accounts.get("eip155").status == "disconnected"


def test_leaving_the_view_forgets_the_pairing() -> None:
    h = harness()
    paired(h)
    h.press("h/back") if h.find("h/back") else h.host("close")
    assert h.model.walletconnect.route == "" and "wc:expiry" not in h.timers


def test_every_wallet_request_goes_over_the_session_when_walletconnect_is_active() -> None:
    """Rule: with WalletConnect active, switch, disconnect and sign-in go through the session
    (runtime effects, no browser effect frame)."""
    h = harness()
    connect(h)
    h.host("open", view="Networks")
    h.press(next(n.id for n in h.of_type("network-item") if n.p["name"] != "Hardhat"))
    switch = h.pending_relay("wallet_switchEthereumChain")
    assert switch.req["params"] == [{"chainId": hex(31338)}]
    assert not [e for e in h.pending_effects() if e["req"].get("method") == "wallet_switchEthereumChain"]
    h.relay("wallet_switchEthereumChain", None)
    assert h.model.networks.active == "eip155:31338"
    h.host("disconnect")
    h.relay("wallet_revokePermissions", None)
    assert h.model.accounts.get("eip155").status == "disconnected"


def test_a_rejected_signature_shows_the_same_message_as_for_injected_wallets() -> None:
    h = Harness(options={"networks": NETWORKS, "siwx": {"required": False}}, walletconnect=True)
    connect(h)
    h.settle_call("siwx.sessions", samples.siwx_sessions())
    h.expect(view="SIWXSignMessage")
    h.press("siwx/sign")
    h.settle_call("siwx.nonce", samples.siwx_nonce())
    sign = h.pending_relay("personal_sign")
    assert sign.req["params"][1].lower() == ADDRESS.lower()
    h.relay("personal_sign", code=5000, message="User rejected.")
    h.advance(150)
    h.expect(text="Signature declined")
    # connected while signing in: no second pairing was started behind the sign-in view
    assert [c.req.get("method") for c in wc_effects(h)].count("wc_pair") == 0


def test_wallet_events_update_the_model() -> None:
    """Rule: the wallet's chainChanged and session delete reach the model (the runtime delivers
    them as the wallet events of the connector ref walletConnect)."""
    h = harness()
    connect(h)
    h.deliver(WalletChainChanged("walletConnect", hex(31338)))
    assert h.model.networks.active == "eip155:31338"
    h.deliver(WalletDisconnected("walletConnect"))
    assert h.model.accounts.get("eip155").status == "disconnected"


def test_a_reload_resyncs_the_session_through_the_engine() -> None:
    """Rule: after a reload (and a reconnect after an engine restart) the WalletConnect account
    is re-synced from the engine's session, not the browser."""
    h = harness()
    connect(h)
    h.rejoin(last=None)
    h.relay("eth_accounts", [ADDRESS.lower()])
    h.relay("eth_chainId", hex(31337))
    assert h.model.accounts.get("eip155").status == "connected"
    h.rejoin(last=h.server_seq)
    h.relay("eth_accounts", [])
    assert h.model.accounts.get("eip155").status == "disconnected"


def test_the_receive_qr_is_encoded_by_the_engine_too() -> None:
    n, bits = encoded(ADDRESS, False)
    assert n == 25 or n == 29 or n >= 21
    assert len(bits) == -(-n * n // 4)


def test_a_wallet_page_pairs_by_qr_on_desktop_and_by_deep_link_on_mobile() -> None:
    """Rule: a directory wallet with a WalletConnect link leads to the pairing: on desktop the QR
    code with the wallet's icon in its centre, 'Copy link' and its desktop app opened with the URI;
    on mobile its deep link with the URI (`wc?uri=`, the URI percent-encoded)."""
    from tests.directory.conftest import harness as dir_harness

    h = dir_harness(walletconnect=True)
    h.host("open", view="AllWallets")
    h.press(h.searched("ledger"))
    assert h.view == "WalletPage"
    link = uri()
    h.relay("wc_pair", {"uri": link, "expiry": 240})
    qr = h.node("wallet/qr")
    assert qr.t == "qr" and qr.p["image"] == wallet_mark("ledger")  # the icon set's mark
    assert "wallet/copy" in h.ids()
    h.press("wallet/wc/desktop")
    assert h.effects()[-1]["req"]["url"] == f"ledgerlive://wc?uri={quote(link, safe='')}"

    m = dir_harness({"metadata": {"name": "Demo", "url": "https://dapp.example"}}, walletconnect=True,
                    env={"mobile": True, "platform": "android"})
    m.host("open", view="AllWallets")
    m.press(m.searched("metamask"))
    m.relay("wc_pair", {"uri": link, "expiry": 240})
    assert not m.of_type("qr")
    m.press("wallet/wc/mobile")
    assert m.effects()[-1]["req"] == {"url": f"metamask://wc?uri={quote(link, safe='')}", "target": "_self"}
    m.relay("wc_approval", {"accounts": [ADDRESS], "chain": "eip155:1", "peer": PEER})
    assert m.model.accounts.get("eip155").status == "connected"


def test_telegram_and_ios_safari_reuse_a_pending_pairing_until_it_expires() -> None:
    """Rule (behaviour.md §4): pairing on Telegram or iOS Safari reuses a pending pairing until expiry;
    elsewhere coming back to the view pairs anew."""
    for env, reused in (({"telegram": True}, True), ({"safari": True, "platform": "ios"}, True),
                        ({"safari": True, "platform": "mac"}, False)):
        h = Harness(options={"networks": NETWORKS}, walletconnect=True, env=env)
        link = paired(h)
        h.press("header/back")
        assert h.view == "Connect"
        h.press("connect/wallet/walletConnect")
        pending = [c for c in wc_effects(h) if c.req.get("method") == "wc_pair" and c.eid in h.session.effects]
        assert (not pending) is reused, env
        if reused:
            assert h.node("wc/qr").t == "qr" and h.model.walletconnect.uri == link
            h.advance(236_000)  # past expiry - 5 s: a fresh URI after all
            assert h.pending_relay("wc_pair")


def test_a_pairing_in_flight_is_waited_on_again_when_the_socket_comes_back() -> None:
    """Rule: after an engine restart (the runtime lost its waiting) the pairing shown is waited
    on again; a second answer to the same pairing changes nothing."""
    h = harness()
    paired(h)
    h.relay("wc_approval", code=8000, message="expired")  # the old runtime's wait ended with it
    h.rejoin(last=h.server_seq)
    h.relay("wc_approval", {"accounts": [ADDRESS], "chain": "eip155:31337", "peer": PEER})
    assert h.model.accounts.get("eip155").status == "connected"


def _one_click(h: Harness) -> dict[str, Any]:
    """Connect → WalletConnect with sign-in set up: the engine's nonce, then `wc_pair` with auth."""
    h.host("open")
    h.press("connect/wallet/walletConnect")
    assert not [c for c in wc_effects(h) if c.req.get("method") == "wc_pair"]  # the nonce comes first
    h.settle_call("siwx.nonce", samples.siwx_nonce("Engine0Nonce42"))
    auth: dict[str, Any] = h.pending_relay("wc_pair").req["auth"]
    h.relay("wc_pair", {"uri": uri(), "expiry": 240})
    return auth


SIGNED = {"message": "signed message", "signature": "0x" + "11" * 65}


def test_one_click_sign_in_pairs_with_the_engines_nonce_and_stores_the_signed_cacao() -> None:
    """Rule (behaviour.md §7 WalletConnect authenticate for SIWX): with sign-in set up the pairing carries
    an authPayload with the engine's nonce, the page's domain and URI, the host's eip155 networks,
    its statement and expiry; an approval with a signed CACAO connects and has the engine verify
    and store it (siwx.verify), with no session lookup and no SIWXSignMessage."""
    h = Harness(options={"networks": NETWORKS, "siwx": {"required": True, "statement": "Sign in to the dApp",
                                                         "expirationSeconds": 3600}},
                walletconnect=True, now=1_795_000_000_000)
    auth = _one_click(h)
    assert auth["nonce"] == "Engine0Nonce42" and auth["chains"] == NETWORKS and auth["type"] == "caip122"
    assert auth["domain"] == "localhost:8000" and auth["aud"] == "http://localhost:8000"
    assert auth["statement"] == "Sign in to the dApp"
    assert auth["iat"] == "2026-11-18T11:06:40.000Z" and auth["exp"] == "2026-11-18T12:06:40.000Z"
    assert auth["resources"][-1].startswith("urn:recap:")
    h.relay("wc_approval", {"accounts": [ADDRESS], "chain": "eip155:31337", "peer": PEER, "siwx": SIGNED})
    assert h.model.accounts.get("eip155").status == "connected"
    assert not h.pending_calls("siwx.sessions") and not h.pending_calls("siwx.nonce")
    verify = h.pending_calls("siwx.verify")[-1]
    assert verify.args_data["message"] == SIGNED["message"] and verify.args_data["signature"] == SIGNED["signature"]
    assert verify.args_data["chain_id"] == 31337 and verify.args_data["address"] == ADDRESS
    h.settle_call("siwx.verify", samples.siwx_verified())
    assert h.model.siwx.has_session and not h.model.modal.open
    assert [c.req.get("method") for c in wc_effects(h)] == []  # no personal_sign


def test_a_refused_one_click_sign_in_offers_personal_sign_and_a_refused_cacao_try_again() -> None:
    """Rule: should the engine refuse the stored CACAO's message, the visitor is connected and
    signs in by personal_sign (SIWXSignMessage, 'Signature declined'); a CACAO the runtime refused
    (7000) shows 'Sign-in could not be verified' with Try again, which fetches a fresh nonce."""
    h = Harness(options={"networks": NETWORKS, "siwx": {"required": True}}, walletconnect=True)
    _one_click(h)
    h.relay("wc_approval", {"accounts": [ADDRESS], "chain": "eip155:31337", "peer": PEER, "siwx": SIGNED})
    h.settle_call("siwx.verify", samples.siwx_refused())
    h.advance(150)
    h.expect(view="SIWXSignMessage", text="Signature declined")
    assert not h.model.siwx.has_session and not h.model.siwx.signing

    h2 = Harness(options={"networks": NETWORKS, "siwx": {"required": True}}, walletconnect=True)
    _one_click(h2)
    h2.relay("wc_approval", code=7000, message="Sign-in could not be verified")
    h2.expect(view="ConnectingWalletConnect", text="Sign-in could not be verified", node="wc/retry")
    h2.press("wc/retry")
    assert h2.pending_calls("siwx.nonce")


def test_without_a_nonce_the_pairing_goes_without_the_authenticate_request() -> None:
    """Rule: a nonce that cannot be issued does not block connecting: the pairing is a plain
    proposal (the visitor then signs in by personal_sign)."""
    h = Harness(options={"networks": NETWORKS, "siwx": {"required": False}}, walletconnect=True)
    h.host("open")
    h.press("connect/wallet/walletConnect")
    h.settle_call("siwx.nonce", ok=False, error="store down")
    assert "auth" not in h.pending_relay("wc_pair").req
