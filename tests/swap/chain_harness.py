"""A swap session whose wallet is a Hardhat node's unlocked account and whose services are the
engine's real ones (tests/chain_services.py `RealChainHarness`): eth_sendTransaction effects are
sent to the node as they are, `Call`s (balances, swap_quote, tx_receipt, history) run for real."""

from __future__ import annotations

import time

from modalcore import samples
from modalcore.chains.catalog import Token
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.slices.swap_quote import QUOTE_DEBOUNCE_MS
from modalcore.wire.frames import AnnouncedWallet, Env

from ..chain_services import RealChainHarness, dev_tokens
from ..devwallet import local_networks


class ChainHarness(RealChainHarness):
    def __init__(self, info: ChainsInfo, address: str, extra_tokens: tuple[Token, ...] = ()) -> None:
        options = {"networks": ["eip155:31337", "eip155:31338"]}
        model = initial_model("test-project", "http://localhost:8000", parse_options(options),
                              Env.model_validate(samples.ENV),
                              [AnnouncedWallet.model_validate(samples.DEV_WALLET)],
                              known_networks=local_networks(info.rpc_urls, dev_tokens(info) + extra_tokens))
        super().__init__(info.rpc_urls, address, model, wallets=[samples.DEV_WALLET], now=int(time.time() * 1000))

    def open_swap(self) -> None:
        self.connect_wallet(address=self.address)
        self.pump()
        if not self.model.modal.open:
            self.host("open")
        self.press("account/feature/swaps")

    def quote(self, amount: str, source: str, target: str) -> None:
        if self.model.swap.from_token != source:
            self.press("swap/from/token")
            self.press(f"swap/pick/from/{source}")
        if self.model.swap.to_token != target:
            self.press("swap/to/token")
            self.press(f"swap/pick/to/{target}")
        self.intent("swap/amount", "change", {"value": amount})
        self.advance(QUOTE_DEBOUNCE_MS)
        self.pump()
