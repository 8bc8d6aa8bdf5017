"""What the SDK's useWalletInfo and useNetwork read (issue 40 item 6): the connected wallet's
name, icon and type in the `account` host event, and the host's networks in the `network` one
(PROTOCOL.md, `host_event`)."""

from __future__ import annotations

from modalcore.enginetest import Harness

from .conftest import DEV_WALLET


def test_a_connected_account_event_names_the_wallet_it_came_through(driver: Harness) -> None:
    assert "walletInfo" not in driver.host_state("account")
    driver.connect_wallet()
    assert driver.host_state("account")["walletInfo"] == {
        "name": DEV_WALLET.name, "icon": DEV_WALLET.icon, "type": "ANNOUNCED"}


def test_the_wallet_info_goes_with_the_disconnect(driver: Harness) -> None:
    driver.connect_wallet()
    driver.intent("host", "disconnect")
    driver.answer_last(None)  # the wallet's wallet_revokePermissions
    assert driver.host_state("account")["isConnected"] is False
    assert "walletInfo" not in driver.host_state("account")


def test_the_network_event_lists_the_hosts_networks_in_order(driver: Harness) -> None:
    networks = driver.host_state("network")["networks"]
    assert [n["caipNetworkId"] for n in networks] == ["eip155:31337", "eip155:31338"]
    assert all(set(n) == {"caipNetworkId", "name", "image"} and n["name"] for n in networks)
