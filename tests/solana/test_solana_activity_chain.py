"""Issue 28 item 7: Solana Activity read from the chain. After confirmed sends through a session on
the local Solana dev chain (LiteSVM behind JSON-RPC), the Activity tab lists them with their
amounts and direction, from `getSignaturesForAddress` and `getTransaction` (jsonParsed); the
receiver's Activity lists what came in."""

from __future__ import annotations

from solders.keypair import Keypair

from modalcore.enginetest import Harness
from modalcore.slices.send_form import ChangedSendAmount, ChangedSendReceiver, SelectedSendToken
from modalcore.slices.send_tx import PressedSend
from modalcore_dev.solana_devchain.accounts import DEV_TOKEN, dev_keypair
from modalcore_dev.solana_devchain.process import SolanaDevchain

from .harness import connect, settle, sign_pending, solana_harness
from .test_solana_send_chain import _give_tokens, funded, rpc_run

SOL = 1_000_000_000


def _send(h: Harness, wallet: Keypair, token: str, amount: str, receiver: str) -> None:
    h.deliver(SelectedSendToken(token))
    h.deliver(ChangedSendAmount(amount))
    h.deliver(ChangedSendReceiver(receiver))
    h.deliver(PressedSend())
    settle(h, "solana_prepare_send")
    sign_pending(h, wallet)
    assert settle(h, "solana_submit_send")["confirmed"] is True


def _rows(h: Harness) -> list[tuple[str, str, str]]:
    return [(n.p["title"], n.p["subtitle"], n.p["amount"]) for n in h.of_type("activity-item")]


def _short(address: str) -> str:
    return f"{address[:6]}…{address[-4:]}"


def test_two_confirmed_sends_are_two_activity_rows_with_amount_and_direction(solana_devchain: SolanaDevchain) -> None:
    url = solana_devchain.rpc_url
    wallet = funded(url, 3 * SOL)
    rpc_run(url, lambda rpc: _give_tokens(rpc, wallet, 40 * 10**6))
    receiver = str(Keypair().pubkey())
    h = solana_harness(url)
    connect(h, wallet)
    settle(h, "solana_balances")
    _send(h, wallet, "native", "1.25", receiver)
    _send(h, wallet, str(DEV_TOKEN.mint), "12.5", receiver)
    h.host("open")
    h.intent("account/tabs", "select", {"value": "2"})
    settle(h, "history")
    assert h.find("account/activity/text") is None  # not "No activity yet"
    to = f"To {_short(receiver)}"
    rows = _rows(h)
    assert rows[:3] == [
        ("Sent", to, "-12.500 DUSD"),
        ("Sent", to, "-1.250 SOL"),
        ("Received", f"From {_short(str(dev_keypair(0).pubkey()))}", "+40.000 DUSD"),
    ]
    assert [(title, amount) for title, _, amount in rows[3:]] == [("Received", "+3.000 SOL")]  # the airdrop
    assert all(n.p["status"] == "confirmed" for n in h.of_type("activity-item"))

    theirs = solana_harness(url)
    theirs.host("open")
    [item] = [n for n in theirs.find_text("Solana Dev Wallet", exact=True) if n.t == "wallet-item"]
    theirs.press(item.id)
    theirs.answer("standard:connect", [receiver])
    theirs.host("open")
    theirs.intent("account/tabs", "select", {"value": "2"})
    settle(theirs, "history")
    mine = _short(str(wallet.pubkey()))
    assert _rows(theirs) == [("Received", f"From {mine}", "+12.500 DUSD"), ("Received", f"From {mine}", "+1.250 SOL")]

