"""The host dApp's EIP-1193 provider while WalletConnect is the active connector (issue 13): the
host intent `rpc` goes over the visitor's WalletConnect session (a `walletconnect` effect the
runtime runs on the relay) and the wallet's answer comes back as the host event `rpc`."""

from __future__ import annotations

from typing import Any

from modalcore.enginetest import Harness

from .test_engine_views import ADDRESS, connect, harness, wc_effects

MESSAGE = "0x68656c6c6f"  # "hello"


def rpc(h: Harness, request_id: str, method: str, params: list[Any]) -> str:
    return h.intent("host", "rpc", {"id": request_id, "method": method, "params": params})


def test_personal_sign_from_the_host_is_sent_over_the_session_and_answered() -> None:
    """Rule: a wallet method from the host provider becomes a request on the WalletConnect
    session with the host's params; the wallet's result is the host event `rpc` of that id."""
    h = harness()
    connect(h)
    assert rpc(h, "s1", "personal_sign", [MESSAGE, ADDRESS]) == "ok"
    sign = h.pending_relay("personal_sign")
    assert sign.req == {"method": "personal_sign", "params": [MESSAGE, ADDRESS]}
    assert [f for f in h.frames_of("host_event") if f.get("kind") == "rpc"] == []  # nothing answered before the wallet
    h.relay("personal_sign", "0x" + "ab" * 65)
    assert h.host_state("rpc") == {"id": "s1", "ok": True, "result": "0x" + "ab" * 65}


def test_a_rejection_in_the_wallet_reaches_the_host_as_4001() -> None:
    """Rule: the wallet's rejection (WalletConnect 5000, or 4001) rejects the host's request
    with EIP-1193 code 4001; other wallet errors keep their code."""
    h = harness()
    connect(h)
    rpc(h, "t1", "eth_sendTransaction", [{"from": ADDRESS, "to": ADDRESS, "value": "0x1"}])
    h.relay("eth_sendTransaction", code=5000, message="User rejected.")
    answer = h.host_state("rpc")
    assert answer["id"] == "t1" and answer["ok"] is False and answer["code"] == 4001
    rpc(h, "t2", "eth_signTypedData_v4", [ADDRESS, "{}"])
    h.relay("eth_signTypedData_v4", code=-32602, message="bad typed data")
    assert h.host_state("rpc") == {"id": "t2", "ok": False, "code": -32602, "message": "bad typed data"}


def test_chain_and_accounts_reads_and_switching_go_through_the_session() -> None:
    """Rule: eth_chainId / eth_accounts / wallet_switchEthereumChain are walletconnect effects
    too (the runtime answers the reads from the session itself)."""
    h = harness()
    connect(h)
    rpc(h, "c1", "eth_chainId", [])
    h.relay("eth_chainId", hex(31337))
    assert h.host_state("rpc") == {"id": "c1", "ok": True, "result": "0x7a69"}
    rpc(h, "c2", "eth_accounts", [])
    h.relay("eth_accounts", [ADDRESS.lower()])
    assert h.host_state("rpc") == {"id": "c2", "ok": True, "result": [ADDRESS.lower()]}
    rpc(h, "c3", "wallet_switchEthereumChain", [{"chainId": hex(31338)}])
    assert h.pending_relay("wallet_switchEthereumChain").req["params"] == [{"chainId": "0x7a6a"}]


def test_methods_outside_the_session_are_refused_without_asking_the_wallet() -> None:
    """Rule: a method the session does not offer fails with 4200 'Requested RPC call is not
    allowed' and sends nothing over the relay."""
    h = harness()
    connect(h)
    before = len(wc_effects(h))
    rpc(h, "x1", "eth_sign", [ADDRESS, MESSAGE])
    assert h.host_state("rpc") == {"id": "x1", "ok": False, "code": 4200,
                                   "message": "Requested RPC call is not allowed"}
    assert len(wc_effects(h)) == before


def test_one_request_at_a_time_waits_on_the_wallet() -> None:
    """Rule: while a host request waits on the wallet a second one is refused with -32002;
    once answered the next one goes through."""
    h = harness()
    connect(h)
    rpc(h, "p1", "personal_sign", [MESSAGE, ADDRESS])
    rpc(h, "p2", "personal_sign", [MESSAGE, ADDRESS])
    answer = h.host_state("rpc")
    assert answer["id"] == "p2" and answer["code"] == -32002
    h.relay("personal_sign", "0x01")
    assert h.host_state("rpc") == {"id": "p1", "ok": True, "result": "0x01"}
    rpc(h, "p3", "personal_sign", [MESSAGE, ADDRESS])
    assert h.pending_relay("personal_sign")


def test_without_a_connected_walletconnect_account_the_host_gets_4900() -> None:
    """Rule: before the session is approved the provider is disconnected (4900)."""
    h = harness()
    h.host("open")
    rpc(h, "d1", "personal_sign", [MESSAGE, ADDRESS])
    assert h.host_state("rpc")["code"] == 4900
