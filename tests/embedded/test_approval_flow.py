"""The embedded wallet answering wallet requests (issue 15 §4; behaviour.md §6 method lists; behaviour.md §2
ApproveTransaction): nothing reaches the page, approval methods wait in ApproveTransaction for
`ApprovalDecided` (which only the engine's approval route delivers), the engine-held key signs."""

from __future__ import annotations

import json

import msgpack

from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data

from modalcore.core.cmds import Call, EffectTo
from modalcore.engine.persist import load_bytes, session_to_bytes
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.service import EmbeddedWallet
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore.slices.embedded import ApprovalDecided, EmbeddedRequest
from modalcore.slices.siwx import SiwxMessageSigned

from .world import EmailWorld

SIGNER = Account.from_key("0x" + "22" * 32)
EMAIL = "dora@example.com"


def _siwx_world(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> EmailWorld:
    services = siwx_services(SqliteSiwxStore(":memory:"), None, SIGNER)
    return EmailWorld(wallet, smtp, services=services,
                      options={"networks": ["eip155:31337"], "siwx": {"required": True}})


def _sign_in_waiting(world: EmailWorld) -> EmbeddedRequest:
    """Email sign-in, then Sign on SIWXSignMessage: the request waiting in the approval frame."""
    world.submit_email(EMAIL)
    world.type_code(world.code_for(EMAIL))
    world.settle_all()
    world.h.press("siwx/sign")
    world.settle_all()
    request = world.h.model.embedded.request
    assert request is not None
    return request


def test_sign_in_with_siwx_waits_in_approve_transaction_and_nothing_reaches_the_page(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _siwx_world(wallet, smtp)
    request = _sign_in_waiting(world)
    assert world.h.view == "ApproveTransaction"
    assert request.method == "personal_sign"
    frame = world.h.node(f"approve/frame/{request.eid}")
    assert frame.t == "frame"
    assert frame.p["src"] == f"/embedded/approve?session=session-1&request={request.eid}"
    assert world.h.effects() == []  # no effect frame: the page is never asked to sign
    # ApproveTransaction cannot be closed unless forced (behaviour.md §2)
    world.h.intent("modal", "close")
    assert world.h.view == "ApproveTransaction"


def test_the_page_cannot_approve_through_the_tree(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _siwx_world(wallet, smtp)
    request = _sign_in_waiting(world)
    before = world.h.model
    for act in ("press", "submit", "change"):
        assert world.h.intent(f"approve/frame/{request.eid}", act, {"value": "approve"}) == "invalid"
    assert world.h.intent("approve/body", "press") == "invalid"
    assert world.h.model.embedded == before.embedded
    assert not [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]


def test_approving_signs_the_sign_in_message_with_the_engine_held_key(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _siwx_world(wallet, smtp)
    request = _sign_in_waiting(world)
    message = json.loads(request.params)[0]
    address = world.h.model.accounts.get("eip155").address
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    [sign] = [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]
    settled = world.run_calls()
    signature = next(s.result["result"] for s in settled if s.to.reply.__name__ == "EmbeddedSigned")
    assert Account.recover_message(encode_defunct(hexstr=message), signature=signature) == address
    world.settle_all()
    assert world.h.model.siwx.has_session
    assert world.h.model.embedded.request is None
    assert world.h.view != "ApproveTransaction"


def test_rejecting_declines_the_signature_and_signs_nothing(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _siwx_world(wallet, smtp)
    request = _sign_in_waiting(world)
    world.h.deliver(ApprovalDecided(request.eid, approve=False))
    assert world.h.model.embedded.request is None
    world.h.advance(150)  # the snack re-shows with the error
    assert world.h.model.snack.message == "Signature declined"
    assert not [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]
    assert not world.h.model.siwx.has_session


def test_a_decision_for_another_request_changes_nothing(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = _siwx_world(wallet, smtp)
    _sign_in_waiting(world)
    before = world.h.model.embedded
    world.h.deliver(ApprovalDecided("e999", approve=True))
    assert world.h.model.embedded == before
    assert not [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]


def test_typed_data_is_signed_by_the_embedded_key(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    typed = {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
                       "Mail": [{"name": "contents", "type": "string"}]},
             "primaryType": "Mail", "domain": {"name": "Demo", "chainId": 31337},
             "message": {"contents": "hello"}}
    world.ask_wallet("eth_signTypedData_v4", [address, json.dumps(typed)])
    request = world.h.model.embedded.request
    assert request is not None and world.h.view == "ApproveTransaction"
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    settled = world.run_calls()
    signature = settled[0].result["result"]
    assert Account.recover_message(encode_typed_data(full_message=typed), signature=signature) == address


def test_safe_methods_are_answered_at_once(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    world.sign_in(EMAIL)
    world.ask_wallet("eth_chainId", [])
    assert world.h.model.embedded.request is None
    assert world.h.view != "ApproveTransaction"


def test_a_method_on_neither_list_is_refused_and_the_ui_says_so_after_300_ms(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    world.sign_in(EMAIL)
    world.ask_wallet("eth_sign", ["0x00", "0x00"])
    assert world.h.model.embedded.request is None
    assert world.h.model.snack.message != "Action not allowed"
    world.h.advance(299)
    assert world.h.model.snack.message != "Action not allowed"
    world.h.advance(1)
    assert world.h.model.snack.message == "Action not allowed"
    assert not [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]


def test_switching_to_a_chain_that_is_not_configured_is_refused(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    world.sign_in(EMAIL)
    world.ask_wallet("wallet_switchEthereumChain", [{"chainId": "0x89"}])
    assert world.h.model.embedded.request is None


def test_going_back_from_the_approval_rejects_it(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    world.h.host("open")
    world.ask_wallet("personal_sign", ["0x68656c6c6f", address])
    assert world.h.view == "ApproveTransaction"
    world.h.press("header/back")
    assert world.h.model.embedded.request is None
    assert world.h.view == "Account"
    assert not [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]


def test_a_request_while_the_modal_is_closed_opens_it_on_the_approval(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    assert not world.h.model.modal.open  # connecting closed it
    world.ask_wallet("personal_sign", ["0x68656c6c6f", address])
    request = world.h.model.embedded.request
    assert request is not None and world.h.model.modal.open
    assert world.h.find(f"approve/frame/{request.eid}") is not None


def test_an_approval_not_decided_in_10_minutes_fails_and_signs_nothing(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world = EmailWorld(wallet, smtp)
    address = world.sign_in(EMAIL)
    world.ask_wallet("personal_sign", ["0x68656c6c6f", address])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.advance(10 * 60 * 1000 - 1)
    assert world.h.model.embedded.request == request
    world.h.advance(1)
    assert world.h.model.embedded.request is None and world.h.view != "ApproveTransaction"
    world.h.deliver(ApprovalDecided(request.eid, approve=True))  # too late
    assert not [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]


def test_a_saved_session_still_answers_the_request_it_holds_after_a_restart(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """Issue 30: the engine's answer as the embedded wallet is addressed by the session to the
    reply the request awaits (a typed reference, no reply name built by a flow); a session
    saved while it holds the request, and loaded again, addresses it the same way."""
    world = _siwx_world(wallet, smtp)
    request = _sign_in_waiting(world)
    loaded, _ = load_bytes(session_to_bytes(world.h.session))
    assert loaded.held == world.h.session.held == {request.eid: EffectTo(SiwxMessageSigned, request.key)}
    # saved before the model held its pending effects: the session kept them beside it
    raw = msgpack.unpackb(session_to_bytes(world.h.session), raw=False)
    assert "held" not in raw and "effects" not in raw
    model = msgpack.unpackb(raw["model"], raw=False)
    model.pop("pending")
    raw["model"] = msgpack.packb(model)
    raw["effects"], raw["held"] = {}, {request.eid: f"SiwxMessageSigned|{request.key}"}
    assert load_bytes(msgpack.packb(raw))[0].held == loaded.held
    # saved before `held` was: the model's request named its reply
    del raw["held"]
    model["embedded"]["request"]["reply"] = "SiwxMessageSigned"
    raw["model"] = msgpack.packb(model)
    older, _ = load_bytes(msgpack.packb(raw))
    assert older.held == loaded.held
    world.h.session = loaded
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    world.run_calls()
    world.settle_all()
    assert world.h.model.siwx.has_session and world.h.model.embedded.request is None
    assert loaded.held == {}


def test_rule_the_page_cannot_answer_the_request_the_engine_holds(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """The request the engine holds as the embedded wallet waits in the model's pending effects
    beside the page's own; an `effect_result` from the page for its id is no answer: nothing
    changes, and the engine's own answer still arrives once."""
    world = _siwx_world(wallet, smtp)
    request = _sign_in_waiting(world)
    [held] = [e for e in world.h.model.pending.effects if e.engine]
    assert held.eid == request.eid and held.reply == f"SiwxMessageSigned|{request.key}"
    before = world.h.model
    assert world.h.effect_result(request.eid, result="0x" + "ab" * 65) == []
    assert world.h.model is before
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    world.run_calls()
    world.settle_all()
    assert world.h.model.siwx.has_session and not world.h.model.pending.effects


def test_rule_pending_effects_are_saved_with_the_model(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """One place: what waits on an answer is part of the model a save packs (no list of its own
    beside it), and a loaded session waits for the same."""
    world = _siwx_world(wallet, smtp)
    _sign_in_waiting(world)
    raw = msgpack.unpackb(session_to_bytes(world.h.session), raw=False)
    assert "effects" not in raw and "held" not in raw
    assert msgpack.unpackb(raw["model"], raw=False)["pending"]["effects"]
    loaded, _ = load_bytes(session_to_bytes(world.h.session))
    assert loaded.model.pending == world.h.model.pending
