"""A walk through every view with the samples' data: the models a test renders in each language.

Disconnected views (Connect, All Wallets, What is a wallet, the WalletConnect view, a wallet
page, connecting to an extension, its declined error), connected ones (Account with tokens,
NFTs and activity of several ages, Networks, Receive, Send with an error, the send preview,
the unsupported chain, a snack message), the 'Invalid App Configuration' alert, and sign-in.
Then the views other branches brought: Swap (token picker, a quote, the review, too little
balance), Buy (OnRamp options, a quote), sending to a name (resolving, resolved), and the
account-name views (RegisterAccountName checked, RegisterAccountNameSuccess pending and done).
"""

from __future__ import annotations

from collections.abc import Iterator

from modalcore import samples
from modalcore.core.evolve import replace
from modalcore.enginetest import Harness, build_model
from modalcore.slices import router
from modalcore.slices.register_name import RegisterState
from modalcore.slices.send_name import DEBOUNCE_MS as NAME_DEBOUNCE_MS
from modalcore.slices.alerts import AnalyticsForbidden
from modalcore.slices.model import Model

from ..directory.conftest import all_wallets
from ..swap.harness import DEMO, connected, quote_answer, typed

DAY_S = 86_400
NOW_S = 1_795_000_000  # 2026-11-18


def _tx(i: int, age_s: int, **fields: object) -> dict[str, object]:
    from datetime import datetime, timezone

    mined = datetime.fromtimestamp(NOW_S - age_s, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return samples.transaction("0x" + f"{i:02x}" * 32, mined_at=mined, **fields)  # type: ignore[arg-type]


def tour() -> Iterator[tuple[str, Model]]:
    for view in router.VIEWS:  # every view, bare
        yield f"bare/{view}", build_model(history=[view], is_open=True)

    h = Harness.from_join(samples.join(), now=NOW_S * 1000)
    yield "closed", h.model
    h.host("open")
    yield "Connect", h.model
    h.deliver(AnalyticsForbidden())
    yield "Connect/alert", h.model
    h.intent("alert/app-config", "close")
    h.press("connect/all-wallets")
    yield "AllWallets", h.model
    h.host("open", view="WhatIsAWallet")
    yield "WhatIsAWallet", h.model
    h.host("open", view="ConnectingWalletConnectBasic")
    yield "ConnectingWalletConnectBasic", h.model
    h.host("close")
    h.host("open")
    wallet = [n for n in h.find_text("Dev Wallet", exact=True) if n.t == "wallet-item"][0]
    h.press(wallet.id)
    yield "ConnectingExternal", h.model
    h.answer("eth_requestAccounts", code=4001, message="User rejected the request.")
    yield "ConnectingExternal/declined", h.model
    h.host("close")
    h.connect_wallet()
    h.settle_call("balances", samples.balances(native_wei=1234 * samples.ETHER + 5 * 10**17))
    h.host("open")
    yield "Account/tokens", h.model
    h.press("account/copy")
    yield "Account/snack", h.model
    h.intent("account/tabs", "select", {"value": "1"})
    yield "Account/nfts-loading", h.model
    if h.pending_calls("nfts"):
        h.settle_call("nfts", samples.nfts(*(samples.nft("0x" + "11" * 20, i, "Punk", "PNK") for i in range(9))))
    yield "Account/nfts", h.model
    h.intent("account/tabs", "select", {"value": "2"})
    ages = (10, 70, 600, 4000, 7200 * 3, 30 * 3600, 5 * DAY_S, 40 * DAY_S, 150 * DAY_S, 400 * DAY_S, 900 * DAY_S)
    txs = [_tx(i, age, direction="in" if i % 2 else "out", operation="receive" if i % 2 else "send",
               quantity="1234.5") for i, age in enumerate(ages)]
    if h.pending_calls("history"):
        h.settle_call("history", samples.history(*txs))
    yield "Account/activity", h.model
    h.intent("account/tabs", "select", {"value": "0"})
    for view in ("Networks", "WalletReceive", "WalletSend"):
        h.host("open", view=view)
        yield view, h.model
    h.press("send/token")
    yield "WalletSend/tokens", h.model
    h.press("send/token/native")
    h.intent("send/amount", "change", {"value": "99999"})
    h.intent("send/receiver", "change", {"value": "0xnot-an-address"})
    yield "WalletSend/errors", h.model
    h.intent("send/amount", "change", {"value": "0.5"})
    h.intent("send/receiver", "change", {"value": samples.SECOND_ADDRESS})
    h.press("send/preview")
    yield "WalletSendPreview/fee-loading", h.model
    if h.pending_calls("estimate_fee"):
        h.settle_call("estimate_fee", samples.fee())
    yield "WalletSendPreview", h.model
    yield "UnsupportedChain", replace(h.model, router=replace(h.model.router, history=(router.Route("UnsupportedChain"),)))

    d = all_wallets()
    yield "AllWallets/loaded", d.model
    d.press("all/w/rainbow")
    yield "WalletPage/extension", d.model
    d.press("header/back")
    d.type("safe")
    d.advance(300)
    d.settle_directory()
    yield "AllWallets/search", d.model
    d.press("all/w/safe")
    yield "WalletPage/links", d.model

    s = Harness.from_join(samples.join(siwx={"required": True}), now=NOW_S * 1000)
    s.connect_wallet()
    yield "SIWXSignMessage", s.model

    yield from _trading()
    yield from _names()


ONRAMP_OPTIONS = {
    "paymentCurrencies": [{"id": "USD"}, {"id": "EUR"}],
    "purchaseCurrencies": [{"id": "ETH", "symbol": "ETH", "name": "Ether", "decimals": 18,
                            "networks": [{"chain_id": "31337", "contract_address": ""}]}],
}
ONRAMP_QUOTE = {"fees": "1.00", "subtotal": "99.00", "total": "100", "purchaseAmount": "0.033", "quoteId": "q1"}


def _trading() -> Iterator[tuple[str, Model]]:
    """Swap and Buy, on the local network's dev tokens (tests/swap/harness.py)."""
    h = connected()
    h.press("account/feature/swaps")
    yield "Swap", h.model
    h.press("swap/to/token")
    yield "Swap/tokens", h.model
    h.press(f"swap/pick/to/{DEMO.address}")
    h.intent("swap/amount", "change", {"value": "1"})
    yield "Swap/quoting", h.model
    for _ in range(3):  # the quote is asked after a pause in typing
        if h.pending_calls("swap_quote"):
            break
        h.advance(1000)
    if h.pending_calls("swap_quote"):
        h.settle_call("swap_quote", quote_answer())
    yield "Swap/quoted", h.model
    h.press("swap/review")
    yield "SwapPreview", h.model
    h.press("swap-preview/cancel")
    typed(h, "99999", to=None)
    yield "Swap/insufficient", h.model

    b = connected()
    b.press("account/feature/onramp")
    yield "OnRamp/loading", b.model
    if b.pending_calls("onramp_options"):
        b.settle_call("onramp_options", ONRAMP_OPTIONS)
    yield "OnRamp", b.model
    for _ in range(3):
        if b.pending_calls("onramp_quote"):
            break
        b.advance(1000)
    if b.pending_calls("onramp_quote"):
        b.settle_call("onramp_quote", ONRAMP_QUOTE)
    yield "OnRamp/quoted", b.model


def _names() -> Iterator[tuple[str, Model]]:
    """Sending to a name (typed, resolving, resolved) and the account-name views."""
    h = connected()
    h.press("account/feature/send")
    h.press("send/token")
    h.press("send/token/native")
    h.intent("send/amount", "change", {"value": "0.5"})
    h.intent("send/receiver", "change", {"value": "carol.eth"})
    yield "WalletSend/name-resolving", h.model
    h.advance(NAME_DEBOUNCE_MS)
    if h.pending_calls("address_of"):
        h.settle_call("address_of", {"name": "carol.eth", "address": samples.SECOND_ADDRESS})
    yield "WalletSend/name-resolved", h.model

    account = replace(h.model, router=replace(h.model.router, history=(router.Route("Account"),)))
    yield "RegisterAccountName/gate", replace(account, router=replace(
        account.router, history=(router.Route("Account"), router.Route("RegisterAccountName"))))
    evm = account.accounts.get("eip155")  # registration needs the auth connector (behaviour.md §5)
    account = replace(account, accounts=account.accounts.with_account("eip155", replace(evm, connector_id="ID_AUTH")))
    checked = RegisterState(label="satoshi", checked="satoshi", suffix=".reown.id", available=True)
    taken = RegisterState(label="satoshi", checked="satoshi", suffix=".reown.id", available=False,
                          suggestions=("satoshi1.reown.id",))
    for name, state in (("available", checked), ("taken", taken), ("checking", RegisterState(label="sato", checking=True))):
        yield f"RegisterAccountName/{name}", replace(account, register_name=state, router=replace(
            account.router, history=(router.Route("Account"), router.Route("RegisterAccountName"))))
    pending = RegisterState(registering="satoshi.reown.id", message="Register satoshi.reown.id")
    done = RegisterState(registered="satoshi.reown.id")
    for name, state in (("pending", pending), ("done", done)):
        yield f"RegisterAccountNameSuccess/{name}", replace(account, register_name=state, router=replace(
            account.router, history=(router.Route("Account"), router.Route("RegisterAccountNameSuccess"))))
