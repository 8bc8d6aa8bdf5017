"""A recording of a real native send (Hardhat node, real services), made the way
`serve --record-dir` records: a Recorder on the session from its join."""

from __future__ import annotations

from pathlib import Path

from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore.slices.model import initial_model
from modalcore.engine.record import Recorder
from modalcore.slices.options import parse_options
from modalcore.wire.frames import Env, Join

from ..send.conftest import DEV_WALLET, WALLET_NODE, ChainHarness

SENDER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"  # dev account 1
RECEIVER = "0x976EA74026E726554dB657fA54763abd0C3a0aa9"  # dev account 6
ORIGIN = "http://localhost:8000"
OPTIONS = {"networks": ["eip155:31337", "eip155:31338"], "metadata": {"name": "Send dApp"}}


def record_send(info: ChainsInfo, path: Path, amount: str = "1.25") -> ChainHarness:
    networks = ChainHarness(info, SENDER).model.networks.known  # the dev chains with their RPC URLs
    known = {network.id: network for network in networks}
    model = initial_model("demo", ORIGIN, parse_options(OPTIONS), Env(), [DEV_WALLET],
                          known_networks=known)
    sink = path.open("w", encoding="utf-8")
    join = Join(t="join", s=1, a=0, project="demo", env=Env(), opts=OPTIONS, wallets=[DEV_WALLET])
    d = ChainHarness(info, SENDER, model=model, session_id="rec-send", origin=ORIGIN, join=join,
                     recorder=Recorder(sink, name="a native send"), networks=networks)
    d.intent("host", "open")
    d.intent(WALLET_NODE)
    d.pump()
    d.intent("host", "open")
    d.intent("account/feature/send")
    d.intent("send/token")
    d.intent("send/token/native")
    d.intent("send/amount", "change", {"value": amount})
    d.intent("send/receiver", "change", {"value": RECEIVER})
    d.intent("send/preview")
    d.pump()
    assert d.model.router.view == "WalletSendPreview", d.model.send.error
    d.intent("send-preview/send")
    d.pump()
    sink.close()
    assert len(d.sent) == 1, "the wallet sent one transaction"
    return d
