"""EIP-5792 while WalletConnect is the active connector (issue 32 item 4): the proposal offers
the four methods (as AppKit's WCNamespaceUtil does) and the host's requests go to the wallet as
they are; what the wallet supports, and its errors with their codes, come back to the host."""

from __future__ import annotations

from modalcore.walletconnect.domain.proposal import EIP5792_METHODS, build_namespaces

from .test_engine_views import ADDRESS, connect, harness
from .test_host_provider import rpc

BATCH = {"version": "2.0.0", "chainId": "0x7a69", "from": ADDRESS, "atomicRequired": True,
         "calls": [{"to": ADDRESS, "value": "0x1"}, {"to": ADDRESS, "data": "0x"}]}


def test_rule_the_session_proposal_offers_the_eip5792_methods() -> None:
    _, optional = build_namespaces(["eip155:31337"])
    assert set(EIP5792_METHODS) <= set(optional["eip155"].methods)
    assert set(EIP5792_METHODS) == {"wallet_getCapabilities", "wallet_sendCalls", "wallet_getCallsStatus",
                                    "wallet_showCallsStatus"}


def test_rule_eip5792_requests_pass_through_to_the_wallet_and_its_answers_come_back() -> None:
    h = harness()
    connect(h)
    assert rpc(h, "k1", "wallet_getCapabilities", [ADDRESS, ["0x7a69"]]) == "ok"
    assert h.pending_relay("wallet_getCapabilities").req == {"method": "wallet_getCapabilities",
                                                             "params": [ADDRESS, ["0x7a69"]]}
    capabilities = {"0x7a69": {"atomic": {"status": "ready"}}}
    h.relay("wallet_getCapabilities", capabilities)
    assert h.host_state("rpc") == {"id": "k1", "ok": True, "result": capabilities}

    assert rpc(h, "k2", "wallet_sendCalls", [BATCH]) == "ok"
    assert h.pending_relay("wallet_sendCalls").req == {"method": "wallet_sendCalls", "params": [BATCH]}
    h.relay("wallet_sendCalls", {"id": "0xbatch"})
    assert h.host_state("rpc") == {"id": "k2", "ok": True, "result": {"id": "0xbatch"}}

    assert rpc(h, "k3", "wallet_getCallsStatus", ["0xbatch"]) == "ok"
    h.relay("wallet_getCallsStatus", code=5730, message="Unknown bundle id")
    assert h.host_state("rpc") == {"id": "k3", "ok": False, "code": 5730, "message": "Unknown bundle id"}

    assert rpc(h, "k4", "wallet_showCallsStatus", ["0xbatch"]) == "ok"
    h.relay("wallet_showCallsStatus", code=-32601, message="Method not supported")
    assert h.host_state("rpc") == {"id": "k4", "ok": False, "code": -32601, "message": "Method not supported"}

    # a rejection in the wallet is still 4001 for these methods (WalletConnect's 5000)
    assert rpc(h, "k5", "wallet_sendCalls", [BATCH]) == "ok"
    h.relay("wallet_sendCalls", code=5000, message="User rejected.")
    assert h.host_state("rpc")["code"] == 4001
