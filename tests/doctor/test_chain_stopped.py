"""The session doctor on a real chain (issue 44 item 2): a send whose chain stops (the Hardhat
node's RPC goes away behind a proxy the test closes) is labelled send/chain_unreachable, and a
send the wallet rejects send/request_rejected; the same send on the running chain has none."""

from __future__ import annotations

import dataclasses
from urllib.parse import urlsplit

import pytest

from modalcore.slices.doctor import Cause
from modalcore_dev.devchain.pytest_plugin import ChainsInfo
from modalcore_dev.latency.proxy import running_proxy

from ..send.conftest import WALLET_NODE, ChainHarness
from ..send.test_send_chain import RECEIVER, SENDER, fill

pytestmark = pytest.mark.chain


def _connected(info: ChainsInfo) -> ChainHarness:
    d = ChainHarness(info, SENDER)
    d.intent("host", "open")
    d.intent(WALLET_NODE)
    d.pump()
    assert d.model.accounts.get("eip155").status == "connected"
    return d


def test_a_send_whose_chain_stopped_is_chain_unreachable(devchain: ChainsInfo) -> None:
    port = urlsplit(devchain.rpc_urls[31337]).port
    assert port is not None
    with running_proxy(port, delay_ms=0) as proxy:
        info = dataclasses.replace(devchain, rpc_urls={**devchain.rpc_urls, 31337: proxy.http_url})
        d = _connected(info)
        fill(d, "native", "0.5", RECEIVER)
    # the chain is gone (its RPC port closed): the fee estimate fails
    d.intent("send/preview")
    d.pump()
    found = d.model.doctor.last
    assert found is not None, (d.model.router.view, d.model.send.error, d.model.send.fee)
    assert (found.flow, found.cause) == ("send", Cause.CHAIN_UNREACHABLE)


def test_a_send_the_wallet_rejects_is_request_rejected(devchain: ChainsInfo) -> None:
    d = _connected(devchain)
    fill(d, "native", "0.5", RECEIVER)
    d.intent("send/preview")
    d.pump()
    assert d.model.doctor.last is None  # the running chain estimated the fee
    d.reject_next = (4001, "User rejected the request.")
    d.intent("send-preview/send")
    d.pump()
    found = d.model.doctor.last
    assert found is not None and (found.flow, found.cause) == ("send", Cause.REQUEST_REJECTED)
    d.expect(view="WalletSend")
    assert d.node("send/support-code").p["text"] == "Copy support code"  # under the form's error
