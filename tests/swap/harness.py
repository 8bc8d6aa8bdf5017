"""A swap session on the fake clock: the local networks carry the dev tokens (priced), the Dev
Wallet is connected on Hardhat (31337) and the balances came back."""

from __future__ import annotations

from typing import Any

from modalcore import samples
from modalcore.chains.catalog import Network
from modalcore.enginetest import Harness
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import AnnouncedWallet, Env

from ..devwallet import DEMO, TUSD, local_networks

__all__ = ["DEMO", "TUSD", "local_networks"]

ETH = 10**18
HASH = "0x" + "ab" * 32
HASH2 = "0x" + "cd" * 32
SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"


def harness(networks: dict[str, Network] | None = None, **opts: Any) -> Harness:
    options = {"networks": ["eip155:31337", "eip155:31338", SOLANA], **opts}
    model = initial_model("test-project", "http://localhost:8000", parse_options(options),
                          Env.model_validate(samples.ENV), [AnnouncedWallet.model_validate(samples.DEV_WALLET)],
                          known_networks=networks if networks is not None else local_networks(native_price=3000.0))
    return Harness(model, wallets=[samples.DEV_WALLET])


def quote_answer(amount_in: int = ETH, amount_out: int = 975 * ETH, *, approve: bool = False,
                 fee: int | None = 150_000 * 10**9, impact: str = "2.25") -> dict[str, Any]:
    """What service `swap_quote` answers."""
    user = samples.DEV_ADDRESS
    tx = {"from": user, "to": "0x4ed7c70F96B99c776995fB64377f0d4aB3B0e1C1", "data": "0x7ff36ab5", "value": hex(amount_in)}
    return {
        "amountIn": str(amount_in), "amountOut": str(amount_out), "minOut": str(amount_out * 99 // 100),
        "priceImpact": impact, "allowance": "0" if approve else str(2**256 - 1),
        "approve": {"from": user, "to": DEMO.address, "data": "0x095ea7b3", "value": "0x0"} if approve else None,
        "swap": tx, "fee": None if fee is None else str(fee), "gas": "150000", "path": [],
    }


def connected(native_wei: int = 10 * ETH, demo: int = 5000 * ETH, tusd: int = 1234_567890,
              **kwargs: Any) -> Harness:
    h = harness(**kwargs)
    h.connect_wallet()
    h.settle_call("balances", samples.balances(native_wei, {DEMO.address: demo, TUSD.address: tusd}))
    if not h.model.modal.open:
        h.host("open")
    return h


def on_swap(**kwargs: Any) -> Harness:
    h = connected(**kwargs)
    h.press("account/feature/swaps")
    return h


def typed(h: Harness, amount: str, to: str | None = DEMO.address, source: str | None = None) -> None:
    if source is not None:
        h.press("swap/from/token")
        h.press(f"swap/pick/from/{source}")
    if to is not None and h.model.swap.to_token is None:
        h.press("swap/to/token")
        h.press(f"swap/pick/to/{to}")
    h.intent("swap/amount", "change", {"value": amount})
