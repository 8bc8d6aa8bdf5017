"""Issue 39 item 9, engine side (drawn views read through their nodes): name suggestions stand in
for a taken name only; the phone's WalletConnect row carries no "QR CODE" tag; the Networks note
shows only with an external wallet connected."""

from __future__ import annotations

from dataclasses import replace

from modalcore.enginetest import Harness
from modalcore.enginetest.models import build_model
from modalcore.rules.embedded import AUTH_CONNECTOR_ID
from modalcore.slices.accounts import AccountsState, AccountState
from modalcore.slices.register_name import RegisterState
from modalcore.views import networks, register_account_name
from modalcore.wire.nodes import Node
from tests.connect.conftest import dev_session

ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


def ids(tree: Node) -> set[str]:
    out = {tree.id}
    for child in tree.c:
        out |= ids(child)
    return out


def _embedded_accounts() -> AccountsState:
    return AccountsState().with_account("eip155", AccountState(
        address=ADDRESS, status="connected", caip_address=f"eip155:1:{ADDRESS}", connector_id=AUTH_CONNECTOR_ID))


def test_name_suggestions_appear_only_when_the_typed_name_is_taken() -> None:
    model = build_model(accounts=_embedded_accounts())
    checked = RegisterState(label="satoshi", checked="satoshi", suggestions=("satoshi-1.reown.id",))
    free = register_account_name.body(replace(model, register_name=replace(checked, available=True)))
    taken = register_account_name.body(replace(model, register_name=replace(checked, available=False)))
    assert "register-name/available" in ids(free) and "register-name/suggestions" not in ids(free)
    assert "register-name/taken" in ids(taken) and "register-name/suggestion/satoshi-1.reown.id" in ids(taken)


def test_the_phone_walletconnect_row_has_no_qr_code_tag() -> None:
    desk = Harness(options={"networks": ["eip155:1"]}, walletconnect=True)
    desk.host("open")
    assert desk.node("connect/wallet/walletConnect").p.get("tag") == "QR CODE"
    phone = Harness(options={"networks": ["eip155:1"]}, walletconnect=True, env={"mobile": True, "platform": "ios"})
    phone.host("open", view="Connect")
    row = phone.find("connect/wallet/walletConnect")
    assert row is None or row.p.get("tag") is None


def test_the_networks_note_shows_only_with_an_external_wallet_connected() -> None:
    h = dev_session()
    h.host("open")
    assert "networks/hint" not in ids(networks.body(h.model))  # nothing connected: no wallet to doubt
    h.connect_wallet()
    assert "networks/hint" in ids(networks.body(h.model))
    embedded = replace(h.model, accounts=_embedded_accounts())
    assert "networks/hint" not in ids(networks.body(embedded))


def test_after_a_reload_the_modal_starts_over_on_account_not_on_the_last_view() -> None:
    h = dev_session()
    h.connect_wallet()
    h.host("open")
    h.intent("account/network")
    assert h.view == "Networks"
    h.rejoin(last=None)
    h.answer("eth_accounts", [ADDRESS.lower()])
    h.answer("eth_chainId", hex(31337))
    assert h.view == "Account" and h.history == ["Account"]
    h.rejoin(last=h.server_seq)  # a reconnect (the page kept its tree) leaves the view alone
    h.intent("account/network")
    h.rejoin(last=h.server_seq)
    assert h.view == "Networks"


def test_a_social_accounts_chip_carries_the_providers_mark() -> None:
    from modalcore.views import account, logos

    chip = account._embedded_user(None, "ada", "github")[0]
    assert chip.p["image"] == logos.SOCIALS["github"] and chip.p.get("icon") is None
    mail = account._embedded_user("ada@example.com", None, None)[0]
    assert mail.p["icon"] == "mail"
