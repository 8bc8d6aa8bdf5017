"""Issue 15 §4 for the host dApp's own EIP-1193 provider: when the embedded wallet is the active
connector, `getProvider().request` reaches the engine as the host intent `rpc`, and behaviour.md §6's
lists apply: safe methods answered at once, approval methods wait for the approval frame (only
`ApprovalDecided`, which the engine's approval route delivers, approves), any other method
fails with 'Requested RPC call is not allowed'. The answer is the host event `rpc`."""

from __future__ import annotations

from typing import Any


from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.core.cmds import Call
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.service import EmbeddedWallet
from modalcore.slices.embedded import ApprovalDecided

from .world import EmailWorld

EMAIL = "hal@example.com"


def _signs(world: EmailWorld) -> list[Call[Any]]:
    return [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]


def test_safe_methods_are_answered_at_once(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    assert world.h.intent("host", "rpc", {"id": "1", "method": "eth_chainId", "params": []}) == "ok"
    assert world.h.host_state("rpc") == {"id": "1", "ok": True, "result": "0x7a69"}
    assert world.h.intent("host", "rpc", {"id": "2", "method": "eth_accounts", "params": []}) == "ok"
    assert world.h.host_state("rpc") == {"id": "2", "ok": True, "result": [address]}
    assert world.h.effects() == [] and world.h.view != "ApproveTransaction"


def test_personal_sign_waits_for_the_approval_frame_and_the_engine_key_signs(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    message = "0x" + b"hello host".hex()
    assert world.h.intent("host", "rpc", {"id": "7", "method": "personal_sign", "params": [message, address]}) == "ok"
    assert world.h.view == "ApproveTransaction"
    assert [f for f in world.h.frames_of("host_event") if f.get("kind") == "rpc"] == []  # not answered yet
    request = world.h.model.embedded.request
    assert request is not None and world.h.effects() == []  # the page is never asked to sign
    # a second request while one waits is refused, and does not replace the waiting one
    assert world.h.intent("host", "rpc", {"id": "8", "method": "eth_chainId", "params": []}) == "ok"
    assert world.h.host_state("rpc") == {"id": "8", "ok": False, "code": -32002,
                                         "message": "A request is already waiting for approval"}
    assert world.h.model.embedded.request == request
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    world.run_calls()
    answer = world.h.host_state("rpc")
    assert answer["id"] == "7" and answer["ok"] is True
    assert Account.recover_message(encode_defunct(hexstr=message), signature=answer["result"]) == address


def test_rejecting_in_the_frame_answers_user_rejected(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    world.h.intent("host", "rpc", {"id": "9", "method": "personal_sign", "params": ["0x00", address]})
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=False))
    assert world.h.host_state("rpc") == {"id": "9", "ok": False, "code": 4001, "message": "User rejected the request."}
    assert _signs(world) == []


def test_a_method_on_neither_list_is_refused(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    world.sign_in(EMAIL)
    assert world.h.intent("host", "rpc", {"id": "3", "method": "eth_sign", "params": ["0x00", "0x00"]}) == "ok"
    assert world.h.host_state("rpc") == {"id": "3", "ok": False, "code": 4200,
                                         "message": "Requested RPC call is not allowed"}
    world.h.advance(300)
    assert world.h.model.snack.message == "Action not allowed"
    assert _signs(world) == []


def test_without_an_embedded_account_the_request_is_refused_and_nothing_changes(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    before = world.h.model.embedded.request
    assert world.h.intent("host", "rpc", {"id": "4", "method": "personal_sign", "params": ["0x00"]}) == "ok"
    assert world.h.host_state("rpc") == {"id": "4", "ok": False, "code": 4900, "message": "Disconnected"}
    assert world.h.model.embedded.request == before and world.h.effects() == []


def test_bad_rpc_args_are_invalid(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    world.sign_in(EMAIL)
    before = world.h.model
    assert world.h.intent("host", "rpc", {"id": "", "method": "eth_chainId", "params": []}) == "invalid"
    assert world.h.intent("host", "rpc", {"id": "5", "method": "x" * 65, "params": []}) == "invalid"
    assert world.h.intent("host", "rpc", {"id": "5", "method": "eth_chainId", "params": [0] * 9}) == "invalid"
    assert world.h.model == before


def test_reads_go_to_the_network_rpc_without_approval(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """behaviour.md §6: eth_call and eth_getBalance are safe: the engine reads them from the network's
    RPC (the service `chain_read`), with no approval frame and nothing sent to the page."""
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    assert world.h.intent("host", "rpc", {"id": "r1", "method": "eth_getBalance",
                                          "params": [address, "latest"]}) == "ok"
    reads = [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "chain_read"]
    assert [(c.args_data["method"], c.args_data["params"]) for c in reads] == [("eth_getBalance", [address, "latest"])]
    assert reads[0].args_data["rpc_url"] and world.h.view != "ApproveTransaction" and world.h.effects() == []
    world.h.settle(reads[0], {"result": "0x2a"})
    assert world.h.host_state("rpc") == {"id": "r1", "ok": True, "result": "0x2a"}
    # a failed read answers an error and leaves nothing waiting
    world.h.intent("host", "rpc", {"id": "r2", "method": "eth_call", "params": [{"to": address}, "latest"]})
    read = [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "chain_read"][-1]
    world.h.settle(read, ok=False, error="execution reverted")
    assert world.h.host_state("rpc") == {"id": "r2", "ok": False, "code": -32603, "message": "execution reverted"}
    assert world.h.model.embedded.request is None
