"""What a wallet answers is bounded like any other client input (PROTOCOL.md "Bounds"): the
accounts of `eth_requestAccounts` / `eth_accounts` are kept until the chain id arrives."""

from __future__ import annotations

from modalcore.enginetest import Harness
from modalcore.rules import limits as L

from .conftest import WALLET_NODE


def addresses(count: int) -> list[str]:
    return [f"0x{n:040x}" for n in range(1, count + 1)]


def test_a_wallet_answering_more_accounts_than_the_bound_fails_the_connect(driver: Harness) -> None:
    driver.intent("host", "open")
    driver.intent(WALLET_NODE)
    driver.answer_last(addresses(L.MAX_WALLET_ACCOUNTS + 1))
    reason = f"The wallet returned more than {L.MAX_WALLET_ACCOUNTS} accounts"
    assert driver.model.connection.pending_accounts == ()
    assert driver.model.connection.error == reason
    assert reason in driver.texts()
    assert driver.effects("eth_chainId") == []


def test_a_wallet_answering_accounts_up_to_the_bound_connects(driver: Harness) -> None:
    driver.intent("host", "open")
    driver.intent(WALLET_NODE)
    driver.answer_last(addresses(L.MAX_WALLET_ACCOUNTS))
    assert len(driver.model.connection.pending_accounts) == L.MAX_WALLET_ACCOUNTS
    driver.answer_last("0x7a69")
    assert driver.model.accounts.get("eip155").address == "0x0000000000000000000000000000000000000001"
