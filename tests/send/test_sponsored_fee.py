"""A send or swap from the embedded sign-in's smart account whose network fee the operator's
paymaster pays (issue 32, `[smart_accounts.sponsor]` covering this project's eth_sendTransaction
on the chain): the preview's network fee reads "Sponsored", not the EOA estimate it will not pay.
Elsewhere (the policy leaves the project out, or the EOA is shown) the estimate stays.

The session is brought to the state an embedded sign-in on a smart-account chain leaves (its
smart account shown, tests/embedded/test_smart_account_session.py drives that sign-in), with the
dev wallet standing in for the account's transport."""

from __future__ import annotations

from dataclasses import replace

from modalcore.chains.catalog import Network
from modalcore.enginetest import Harness
from modalcore.slices.swap_quote import QUOTE_DEBOUNCE_MS
from modalcore.slices.smart_account import EOA, SMART_ACCOUNT, SmartAccount, SmartAccountsState

from ..swap.harness import ETH, connected, quote_answer, typed
from ..swap.harness import local_networks as swap_networks
from .conftest import ADDRESS, dev_session, local_networks
from .test_send_rules import fill, ready

CHAIN = "eip155:31337"
OWNER = "0x00000000000000000000000000000000000A11cE"


def _sponsoring(networks: dict[str, Network], project: str) -> dict[str, Network]:
    return {key: replace(n, smart_accounts=True, sponsored_send_projects=(project,)) if key == CHAIN else n
            for key, n in networks.items()}


def _smart_account_shown(h: Harness, *, eoa: bool = False) -> None:
    smart = SmartAccountsState(owner=OWNER, accounts=(SmartAccount(CHAIN, ADDRESS, deployed=True),),
                               preferred=EOA if eoa else SMART_ACCOUNT)
    h.session.model = replace(h.model, smart=smart)


def _send_preview(project: str, *, eoa: bool = False) -> Harness:
    h = dev_session(networks=_sponsoring(local_networks(), project))
    ready(h)
    _smart_account_shown(h, eoa=eoa)
    fill(h, amount="1.5")
    h.intent("send/preview")
    h.settle(h.calls("estimate_fee")[-1], {"gas": "21000", "gas_price": "1875000000", "fee": str(21000 * 1875000000)})
    return h


def test_a_sponsored_send_from_the_smart_account_shows_its_fee_as_sponsored() -> None:
    h = _send_preview(project=dev_session().model.project_id)
    assert h.node("send-preview/fee/value").p["text"] == "Sponsored"


def test_a_send_the_policy_does_not_sponsor_keeps_the_fee_estimate() -> None:
    h = _send_preview(project="another-project")
    assert h.node("send-preview/fee/value").p["text"] == "~0.00004 ETH"


def test_a_send_from_the_eoa_keeps_the_fee_estimate() -> None:
    h = _send_preview(project=dev_session().model.project_id, eoa=True)
    assert h.node("send-preview/fee/value").p["text"] == "~0.00004 ETH"


def _swap_quoted(project: str) -> Harness:
    h = connected(networks=_sponsoring(swap_networks(native_price=3000.0), project))
    _smart_account_shown(h)
    h.press("account/feature/swaps")
    typed(h, "1")
    h.advance(QUOTE_DEBOUNCE_MS)
    h.settle_call("swap_quote", quote_answer(ETH))
    return h


def test_a_sponsored_swap_from_the_smart_account_shows_its_fee_as_sponsored() -> None:
    h = _swap_quoted("test-project")
    assert h.node("swap/details/fee/value").p["text"] == "Sponsored"
    h.press("swap/review")
    assert h.node("swap-preview/details/fee/value").p["text"] == "Sponsored"


def test_a_swap_the_policy_does_not_sponsor_keeps_the_fee_estimate() -> None:
    h = _swap_quoted("another-project")
    assert h.node("swap/details/fee/value").p["text"] == "~$0.45"
