"""The operator's `[smart_accounts.sponsor]` policy as the Send and Swap previews read it (issue
32): a chain's `sponsored_send_projects` are the policy's projects when it sponsors
eth_sendTransaction there, none when its `methods` leave that method out."""

from __future__ import annotations

from typing import Any

from modalcore.server.config import parse_config
from modalcore_dev.devchain.smart_accounts import PAYMASTER_SIGNER_KEY_PATH

CHAIN = "eip155:31337"
ADDR = "0x" + "11" * 20


def _networks(methods: list[str] | None) -> Any:
    sponsor: dict[str, Any] = {"projects": ["demo"], "chains": [CHAIN]}
    if methods is not None:
        sponsor["methods"] = methods
    section = {"chains": {CHAIN: {"bundler_url": "http://127.0.0.1:4337", "entry_point": ADDR, "factory": ADDR,
                                  "paymaster": ADDR, "paymaster_signer_key_file": str(PAYMASTER_SIGNER_KEY_PATH)}},
               "sponsor": sponsor}
    return parse_config({"smart_accounts": section}).known_networks()


def test_a_policy_sponsoring_eth_send_transaction_marks_the_chain_for_the_previews() -> None:
    network = _networks(None)[CHAIN]
    assert network.sponsored_send_projects == ("demo",)
    assert network.sponsored_projects == ("demo",)


def test_a_policy_without_eth_send_transaction_leaves_the_previews_estimating() -> None:
    network = _networks(["wallet_sendCalls"])[CHAIN]
    assert network.sponsored_send_projects == ()
    assert network.sponsored_projects == ("demo",)
