"""A reloaded page brings its createModal options; a recording carries the networks it used."""

from __future__ import annotations

import io
from pathlib import Path

from modalcore.enginetest import Harness
from modalcore.chains.catalog import NativeCurrency, Network, Token
from modalcore.slices.model import initial_model
from modalcore.engine.record import Recorder, replay
from modalcore.engine.session import Session
from modalcore.slices.options import parse_options
from modalcore.wire.frames import EffectResult, Env, Intent, Join

from .conftest import ADDRESS, DEV_WALLET


def test_reload_applies_the_pages_new_options_and_keeps_the_connection(driver: Harness) -> None:
    driver.connect_wallet()
    options = parse_options({"networks": ["eip155:31337"], "siwx": {"required": True},
                             "themeMode": "light"})
    driver.rejoin(last=None, options=options)
    model = driver.model
    assert model.options.siwx is not None and model.siwx.required is True
    assert model.theme.mode == "light"
    assert model.accounts.get("eip155").status == "connecting"  # re-synced, not dropped


def test_a_reconnect_of_the_same_page_keeps_the_stored_options(driver: Harness) -> None:
    options = parse_options({"networks": ["eip155:31337"], "themeMode": "light"})
    driver.rejoin(last=driver.session.out_seq, options=options)
    assert driver.model.theme.mode == "dark"


def test_a_recording_replays_with_the_operators_networks(tmp_path: Path) -> None:
    token = Token("0x5FbDB2315678afecb367f032d93F642f64180aa3", "OPS", "Operator Token", 6, 1.0)
    network = Network("eip155:31337", "Operator Chain", NativeCurrency("Ether", "ETH", 18),
                      ("http://127.0.0.1:9",), tokens=(token,))
    join = Join(t="join", s=1, a=0, project="demo", opts={"networks": ["eip155:31337"]}, env=Env(),
                wallets=[DEV_WALLET])
    model = initial_model("demo", "http://localhost:1", parse_options(join.opts), join.env,
                          join.wallets, known_networks={network.id: network})
    sink = io.StringIO()
    session = Session("s1", model, 0)
    session.recorder = Recorder(sink)
    session.recorder.join(0, "s1", "http://localhost:1", join, model.networks.known)
    session.welcome("token", resumed=False, last=None)
    session.receive(Intent(t="intent", s=2, a=0, iid="i1", node="connect/wallet/dev.modalcore.devwallet",
                           act="press", args={}), 10)
    for seq, (eid, result) in enumerate((("e1", [ADDRESS.lower()]), ("e2", "0x7a69")), start=3):
        session.receive(EffectResult(t="effect_result", s=seq, a=0, eid=eid, ok=True, result=result), 20)
    path = tmp_path / "operator.jsonl"
    path.write_text(sink.getvalue())
    assert "Operator Chain" in sink.getvalue()  # the Account view's network chip
    assert replay(path) is None
