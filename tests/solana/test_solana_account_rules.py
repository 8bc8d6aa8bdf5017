"""Solana accounts in the engine (behaviour.md §3 accounts per namespace, §4 switching, §5 balance
rules), driven through a session: a Wallet Standard wallet announced with the `solana`
namespace, a wallet of both namespaces, switching between an eip155 and a solana network."""

from __future__ import annotations

from typing import Any

from modalcore.chains.catalog import SOLANA_DEVNET, SOLANA_LOCAL
from modalcore.enginetest import Harness
from modalcore.samples import DEV_ADDRESS, DEV_WALLET, SECOND_ADDRESS
from modalcore.slices.connecting import PressedWallet
from modalcore.slices.send_form import ChangedSendAmount, ChangedSendReceiver

SOL_ADDRESS = "SuJsQsCbtNtogXTXfXKnuqSeyde72ryvUz3JhqPKRKg"  # dev account 0 (on the curve)
TOKEN_ACCOUNT = "5t6Zxgh551nei5WMBgh6eoLBXWnsyLsukL1zEgDaSLD"  # an associated token account: off the curve
DUSD = "DT7iqkXzuftKJvyjkgx35cJNRQZmw246qtHqnetM1bJV"
SOLANA_WALLET = {"uuid": "sol-uuid", "name": "Solana Dev Wallet", "icon": "data:image/svg+xml,s",
                 "rdns": "dev.modal.solana", "namespaces": ["solana"]}
BOTH_WALLET = {**DEV_WALLET, "namespaces": ["eip155", "solana"]}


def harness(networks: list[str], wallets: list[dict[str, Any]]) -> Harness:
    return Harness(options={"networks": networks}, wallets=wallets)


def connect_solana(h: Harness, address: str = SOL_ADDRESS) -> None:
    h.host("open")
    [item] = [n for n in h.find_text("Solana Dev Wallet", exact=True) if n.t == "wallet-item"]
    h.press(item.id)
    h.answer("standard:connect", [address])


def test_a_solana_wallet_connects_its_account_in_the_solana_namespace_as_eoa() -> None:
    h = harness(["eip155:1", SOLANA_LOCAL], [SOLANA_WALLET])
    connect_solana(h)
    effect = [e for e in h.effects() if e["req"].get("method") == "standard:connect"][0]
    assert effect["kind"] == "solana" and effect["req"]["connector"] == "sol-uuid"
    account = h.model.accounts.get("solana")
    assert account.status == "connected"
    assert account.caip_address == f"{SOLANA_LOCAL}:{SOL_ADDRESS}"
    assert account.preferred_account_type == "eoa"
    assert h.model.networks.active == SOLANA_LOCAL
    assert h.model.accounts.get("eip155").address is None
    [call] = h.pending_calls("solana_balances")
    assert call.args_data == {"rpc_url": "http://127.0.0.1:8899", "address": SOL_ADDRESS, "tokens": [DUSD]}


def test_solana_balances_floor_to_three_decimals() -> None:
    h = harness([SOLANA_LOCAL], [SOLANA_WALLET])
    connect_solana(h)
    h.settle_call("solana_balances", {"native": "1234567890", "tokens": {DUSD: "1500999"}})
    h.host("open")
    assert h.node("account/balance").p["text"] == "1.234 SOL"
    row = h.node(f"account/token/{DUSD}")
    assert row.p["amount"] == "1.500" and row.p["symbol"] == "DUSD"


def test_no_balance_fetch_on_a_solana_test_network() -> None:
    h = harness([SOLANA_DEVNET], [SOLANA_WALLET])
    connect_solana(h)
    assert h.pending_calls("solana_balances") == []
    assert h.model.accounts.get("solana").balance == "0.00"


def test_an_off_curve_or_malformed_address_is_not_an_account() -> None:
    for answer in ([TOKEN_ACCOUNT], ["0x" + "ab" * 20], [], "nope"):
        h = harness([SOLANA_LOCAL], [SOLANA_WALLET])
        h.host("open")
        [item] = [n for n in h.find_text("Solana Dev Wallet", exact=True) if n.t == "wallet-item"]
        h.press(item.id)
        h.answer("standard:connect", answer)
        assert h.model.accounts.get("solana").status == "disconnected"
        assert h.model.connection.error == "The wallet returned no account"
        assert h.pending_calls("solana_balances") == []


def test_a_solana_wallet_is_not_offered_without_a_solana_network_and_refused_if_pressed() -> None:
    h = harness(["eip155:1"], [DEV_WALLET, SOLANA_WALLET])
    h.host("open")
    assert h.find_text("Dev Wallet", exact=True) and not h.find_text("Solana Dev Wallet", exact=True)
    h.deliver(PressedWallet("dev.modal.solana"))  # a stale press for it anyway
    h.answer("standard:connect", [SOL_ADDRESS])
    assert h.model.accounts.get("solana").status == "disconnected"
    assert h.model.connection.error == "Unsupported chain"


def test_a_wallet_of_both_namespaces_connects_both() -> None:
    h = harness(["eip155:31337", SOLANA_LOCAL], [BOTH_WALLET])
    h.connect_wallet()
    h.answer("standard:connect", [SOL_ADDRESS])
    assert h.model.accounts.get("eip155").address == DEV_ADDRESS
    assert h.model.accounts.get("solana").caip_address == f"{SOLANA_LOCAL}:{SOL_ADDRESS}"
    assert h.model.networks.active == "eip155:31337"  # the eip155 network stays active


def test_switching_between_eip155_and_solana_recomputes_the_address_and_resets_send() -> None:
    h = harness(["eip155:31337", SOLANA_LOCAL], [BOTH_WALLET])
    h.connect_wallet()
    h.answer("standard:connect", [SOL_ADDRESS])
    h.settle_call("balances", {"native": "1000000000000000000", "tokens": {}})
    h.host("open")
    assert h.node("account/balance").p["text"] == "1.000 ETH"
    h.deliver(ChangedSendAmount("0.5"))
    h.deliver(ChangedSendReceiver(SECOND_ADDRESS))
    assert h.model.send.amount == "0.5"
    h.host("switch_network", network=SOLANA_LOCAL)
    assert h.model.send.amount == "" and h.model.send.receiver == ""  # the send form reset
    assert h.model.networks.active_namespace == "solana"
    assert h.model.modal.active_chain == "solana"
    assert h.model.accounts.get("solana").caip_address == f"{SOLANA_LOCAL}:{SOL_ADDRESS}"
    assert h.pending_calls("solana_balances")
    h.settle_call("solana_balances", {"native": "2500000000", "tokens": {}})
    assert h.node("account/balance").p["text"] == "2.500 SOL"
    h.host("switch_network", network="eip155:31337")
    h.answer("wallet_switchEthereumChain", None)
    assert h.model.networks.active_namespace == "eip155"
    assert h.model.accounts.get("eip155").caip_address == f"eip155:31337:{DEV_ADDRESS}"


def test_a_solana_wallet_is_listed_beside_an_evm_wallet() -> None:
    h = harness(["eip155:31337", SOLANA_LOCAL], [DEV_WALLET, SOLANA_WALLET])
    h.host("open")
    names = [n.p.get("name") or n.p.get("title") for n in h.of_type("wallet-item")]
    assert h.find_text("Dev Wallet", exact=True) and h.find_text("Solana Dev Wallet", exact=True), names
    assert [c.namespaces for c in h.model.connectors.items] == [("eip155",), ("solana",)]


def test_switching_to_a_namespace_without_an_account_asks_to_connect_one() -> None:
    h = harness([SOLANA_LOCAL, "eip155:31337"], [DEV_WALLET, SOLANA_WALLET])
    connect_solana(h)
    h.host("open")
    h.press("account/network")
    assert h.view == "Networks"
    h.host("switch_network", network="eip155:31337")
    assert h.model.networks.active_namespace == "eip155"
    assert h.view == "Connect"  # no eip155 account yet: connect a wallet for it
    [item] = [n for n in h.find_text("Dev Wallet", exact=True) if n.t == "wallet-item"]
    h.press(item.id)
    h.answer("eth_requestAccounts", [DEV_ADDRESS.lower()])
    h.answer("eth_chainId", "0x7a69")
    assert h.model.accounts.get("eip155").caip_address == f"eip155:31337:{DEV_ADDRESS}"
    assert h.model.accounts.get("solana").caip_address == f"{SOLANA_LOCAL}:{SOL_ADDRESS}"  # still connected
    h.host("switch_network", network=SOLANA_LOCAL)
    assert h.model.networks.active_namespace == "solana"
    h.host("open")
    assert h.view == "Account"
    assert h.node("account/address").p["text"] == "SuJsQs…KRKg"  # the Solana address again
    assert h.host_state("account")["caipAddress"] == f"{SOLANA_LOCAL}:{SOL_ADDRESS}"


def test_after_a_reload_the_solana_account_is_asked_again_silently() -> None:
    h = harness([SOLANA_LOCAL], [SOLANA_WALLET])
    connect_solana(h)
    h.rejoin(last=None)
    effect = h.pending_effect("standard:connect")
    assert effect["req"]["params"] == {"silent": True}
    assert h.model.accounts.get("solana").status == "connecting"
    h.answer("standard:connect", [SOL_ADDRESS])
    assert h.model.accounts.get("solana").status == "connected"
    assert h.model.accounts.get("solana").caip_address == f"{SOLANA_LOCAL}:{SOL_ADDRESS}"


def test_after_a_reload_a_wallet_that_no_longer_grants_the_account_disconnects_it() -> None:
    h = harness([SOLANA_LOCAL], [SOLANA_WALLET])
    connect_solana(h)
    h.rejoin(last=None)
    h.answer("standard:connect", [])
    assert h.model.accounts.get("solana").status == "disconnected"
    assert h.model.accounts.get("solana").address is None


def test_solana_wallets_carry_a_namespace_badge() -> None:
    h = harness(["eip155:31337", SOLANA_LOCAL], [DEV_WALLET, SOLANA_WALLET, {**BOTH_WALLET, "uuid": "b",
                                                                           "name": "Both", "rdns": "both"}])
    h.host("open")
    tags = {n.p["name"]: n.p.get("tag") for n in h.of_type("wallet-item") if n.p.get("name") in
            ("Dev Wallet", "Solana Dev Wallet", "Both")}
    assert tags == {"Dev Wallet": "INSTALLED", "Solana Dev Wallet": "SOLANA", "Both": "EVM + SOLANA"}
