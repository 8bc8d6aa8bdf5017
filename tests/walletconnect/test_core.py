"""The pure dApp steps (no I/O): pairing expiry, the proposal, settlement, permission checks,
requests' expiry, and the state as plain data. The wallet's side is played with the same
primitives (the real wallet is in test_wallet_peer.py)."""

from __future__ import annotations

import json

import pytest

from modalcore.walletconnect.backend import core, jsonrpc
from modalcore.walletconnect.backend.crypto import KeyPair, derive_sym_key, seal, topic_of, unseal
from modalcore.walletconnect.domain.errors import UNAUTHORIZED_CHAIN, UNAUTHORIZED_METHOD, WalletConnectError
from modalcore.walletconnect.backend.events import (Dropped, PairingExpired, ProposalApproved, ProposalDeclined, ProposalExpired,
                                            RequestTimedOut, ResponseReceived, SessionDeleted, SessionSettled)
from modalcore.walletconnect.domain.proposal import EIP155_EVENTS, PROPOSED_METHODS, ProposalError, build_namespaces
from modalcore.walletconnect.domain.sign_rpc import Metadata
from modalcore.walletconnect.backend.state import DappState, secret_fields
from modalcore.walletconnect.backend.tags import SIGN_RPC, irn, request_ttl

NOW = 1_700_000_000_000
META = Metadata(name="dApp")
WALLET = Metadata(name="Wallet")
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
SYM = "11" * 32


def _proposed() -> tuple[core.Step, KeyPair]:
    step, uri = core.create_pairing(DappState(), SYM, NOW)
    dapp_keys = KeyPair.from_private("22" * 32)
    step = core.propose(step.state, pairing_topic=uri.topic, key_pair=dapp_keys, proposal_id=7,
                        networks=["eip155:31337", "eip155:1"], metadata=META, now_ms=NOW)
    return step, dapp_keys


def _settled(expiry: int = NOW // 1000 + 3600) -> tuple[DappState, str, str]:
    step, dapp_keys = _proposed()
    wallet_keys = KeyPair.from_private("33" * 32)
    approval = jsonrpc.result(7, {"relay": {"protocol": "irn"}, "responderPublicKey": wallet_keys.public_key})
    step = core.receive(step.state, topic_of(SYM), seal(approval, SYM), NOW)
    session_key = derive_sym_key(wallet_keys.private_key, dapp_keys.public_key)
    topic = topic_of(session_key)
    settle = jsonrpc.request(8, "wc_sessionSettle", {
        "relay": {"protocol": "irn"}, "controller": {"publicKey": wallet_keys.public_key, "metadata": WALLET.model_dump()},
        "namespaces": {"eip155": {"chains": ["eip155:31337"], "accounts": [f"eip155:31337:{ADDRESS}"],
                                  "methods": ["personal_sign"], "events": ["chainChanged"]}},
        "expiry": expiry})
    step = core.receive(step.state, topic, seal(settle, session_key), NOW)
    return step.state, topic, session_key


def test_pairing_uri_and_expiry_after_240_s() -> None:
    step, uri = core.create_pairing(DappState(), SYM, NOW)
    assert step.subscribe == (topic_of(SYM),) and uri.expiry_timestamp == NOW // 1000 + 240
    assert core.expire(step.state, NOW + 239_000).events == ()
    expired = core.expire(step.state, NOW + 240_000)
    assert expired.events == (PairingExpired(uri.topic),) and expired.state.pairings == {}


def test_the_proposal_goes_out_on_the_pairing_topic_with_tag_1100() -> None:
    step, dapp_keys = _proposed()
    (out,) = step.outgoing
    assert (out.topic, out.tag, out.ttl, out.sym_key) == (topic_of(SYM), 1100, 300, SYM)
    params = json.loads(out.payload)["params"]
    assert params["requiredNamespaces"] == {}
    assert params["optionalNamespaces"]["eip155"] == {"chains": ["eip155:31337", "eip155:1"],
                                                      "methods": list(PROPOSED_METHODS), "events": list(EIP155_EVENTS)}
    assert params["proposer"]["publicKey"] == dapp_keys.public_key and params["expiryTimestamp"] == NOW // 1000 + 300


def test_approval_then_settlement_make_a_session() -> None:
    state, topic, session_key = _settled()
    session = state.sessions[topic]
    assert session.settled and session.accounts == [f"eip155:31337:{ADDRESS}"]
    assert session.peer == WALLET and state.proposals == {} and state.pairings[topic_of(SYM)].active


def test_settlement_answers_true_with_tag_1103() -> None:
    step, dapp_keys = _proposed()
    wallet_keys = KeyPair.from_private("33" * 32)
    approval = jsonrpc.result(7, {"relay": {"protocol": "irn"}, "responderPublicKey": wallet_keys.public_key})
    step = core.receive(step.state, topic_of(SYM), seal(approval, SYM), NOW)
    assert isinstance(step.events[0], ProposalApproved) and len(step.subscribe) == 1
    key = derive_sym_key(wallet_keys.private_key, dapp_keys.public_key)
    settle = jsonrpc.request(8, "wc_sessionSettle", {
        "relay": {"protocol": "irn"}, "controller": {"publicKey": wallet_keys.public_key, "metadata": {"name": "W"}},
        "namespaces": {}, "expiry": NOW // 1000 + 60})
    step = core.receive(step.state, step.subscribe[0], seal(settle, key), NOW)
    assert isinstance(step.events[0], SessionSettled)
    (answer,) = step.outgoing
    assert answer.tag == 1103 and json.loads(answer.payload) == {"id": 8, "jsonrpc": "2.0", "result": True}


def test_a_settlement_from_another_key_is_refused() -> None:
    step, dapp_keys = _proposed()
    wallet_keys, intruder = KeyPair.from_private("33" * 32), KeyPair.from_private("44" * 32)
    approval = jsonrpc.result(7, {"relay": {"protocol": "irn"}, "responderPublicKey": wallet_keys.public_key})
    step = core.receive(step.state, topic_of(SYM), seal(approval, SYM), NOW)
    key = derive_sym_key(wallet_keys.private_key, dapp_keys.public_key)
    settle = jsonrpc.request(8, "wc_sessionSettle", {
        "relay": {"protocol": "irn"}, "controller": {"publicKey": intruder.public_key, "metadata": {"name": "W"}},
        "namespaces": {}, "expiry": NOW // 1000 + 60})
    after = core.receive(step.state, step.subscribe[0], seal(settle, key), NOW)
    assert not after.state.sessions[step.subscribe[0]].settled
    assert any(isinstance(e, Dropped) for e in after.events)


def test_a_declined_proposal_is_a_typed_event() -> None:
    step, _ = _proposed()
    declined = core.receive(step.state, topic_of(SYM), seal(jsonrpc.failure(7, 5000, "User rejected."), SYM), NOW)
    assert declined.events == (ProposalDeclined(7, 5000, "User rejected."),) and declined.state.proposals == {}


def test_requests_are_checked_against_the_session_namespaces() -> None:
    state, topic, _ = _settled()
    with pytest.raises(WalletConnectError) as chain:
        core.send_request(state, topic=topic, request_id=1, chain_id="eip155:1", method="personal_sign",
                          params=[], now_ms=NOW)
    with pytest.raises(WalletConnectError) as method:
        core.send_request(state, topic=topic, request_id=1, chain_id="eip155:31337", method="eth_sign",
                          params=[], now_ms=NOW)
    assert (chain.value.code, method.value.code) == (UNAUTHORIZED_CHAIN, UNAUTHORIZED_METHOD)


def test_a_request_with_expiry_extends_the_ttl_and_times_out() -> None:
    state, topic, key = _settled()
    expiry = NOW // 1000 + 600
    step = core.send_request(state, topic=topic, request_id=5, chain_id="eip155:31337", method="personal_sign",
                             params=["0x00", ADDRESS], now_ms=NOW, expiry=expiry)
    (out,) = step.outgoing
    assert (out.tag, out.ttl) == (1108, 600)
    assert json.loads(unseal(seal(out.payload, key), key))["params"]["request"]["expiryTimestamp"] == expiry
    assert core.expire(step.state, NOW + 599_000).events == ()
    assert core.expire(step.state, NOW + 600_000).events == (RequestTimedOut(5, topic, "wc_sessionRequest"),)
    answered = core.receive(step.state, topic, seal(jsonrpc.result(5, "0xsig"), key), NOW)
    assert answered.events == (ResponseReceived(5, topic, "wc_sessionRequest", True, "0xsig"),)
    assert core.receive(answered.state, topic, seal(jsonrpc.result(5, "0xsig"), key), NOW).events[0] == \
        Dropped(topic, "response 5 to no request of ours")


def test_a_wallet_delete_ends_the_session_and_answers_with_tag_1113() -> None:
    state, topic, key = _settled()
    step = core.receive(state, topic, seal(jsonrpc.request(9, "wc_sessionDelete", {"code": 6000, "message": "bye"}),
                                           key), NOW)
    assert step.events == (SessionDeleted(topic, 6000, "bye", by_peer=True),)
    assert step.state.sessions == {} and step.unsubscribe == (topic,) and step.outgoing[0].tag == 1113


def test_the_state_is_plain_serialisable_data_with_named_secrets() -> None:
    state, topic, key = _settled()
    text = state.model_dump_json()
    assert DappState.model_validate_json(text) == state
    assert key in text and set(secret_fields()) == {"sym_key", "private_key"}


def test_tags_and_ttls_follow_the_spec_table() -> None:
    assert {m: (o.req.tag, o.res.tag) for m, o in SIGN_RPC.items() if m.startswith("wc_session")} == {
        "wc_sessionPropose": (1100, 1101), "wc_sessionSettle": (1102, 1103), "wc_sessionUpdate": (1104, 1105),
        "wc_sessionExtend": (1106, 1107), "wc_sessionRequest": (1108, 1109), "wc_sessionEvent": (1110, 1111),
        "wc_sessionDelete": (1112, 1113), "wc_sessionPing": (1114, 1115), "wc_sessionAuthenticate": (1116, 1117)}
    assert irn("wc_sessionPropose", "reject").tag == 1120 and irn("wc_sessionPropose", "auto_reject").tag == 1121
    assert irn("wc_unknown", "res").tag == 0
    assert request_ttl(None, 0) == 300 and request_ttl(7200, 0) == 7200


def test_proposals_need_an_eip155_network() -> None:
    required, optional = build_namespaces(["eip155:1", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "eip155:1"],
                                          required=["eip155:1"])
    assert required["eip155"].chains == ["eip155:1"] and optional["eip155"].chains == ["eip155:1"]
    with pytest.raises(ProposalError):
        build_namespaces(["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"])
    with pytest.raises(ProposalError):
        build_namespaces(["eip155:1"], required=["eip155:10"])
    with pytest.raises(ProposalError):
        build_namespaces(["eip155:x"])


def test_an_unanswered_proposal_expires_after_its_ttl() -> None:
    step, _ = _proposed()
    assert not any(isinstance(e, ProposalExpired) for e in core.expire(step.state, NOW + 299_000).events)
    expired = core.expire(step.state, NOW + 300_000)
    assert ProposalExpired(7) in expired.events and expired.state.proposals == {}


def test_a_new_pairing_replaces_the_unanswered_ones_and_their_proposals() -> None:
    """Rule: a visitor holds one pending pairing (a bound on what redrawing the QR accumulates):
    unanswered pairings and their proposals are dropped (unsubscribed, the proposal expired);
    a pairing a wallet answered on stays."""
    step, _ = _proposed()
    dropped = core.drop_unanswered(step.state)
    assert dropped.state.pairings == {} and dropped.state.proposals == {}
    assert dropped.unsubscribe == (topic_of(SYM),) and dropped.events == (ProposalExpired(7),)
    state, _, _ = _settled()
    kept = core.drop_unanswered(state)
    assert kept.state.pairings == state.pairings and kept.unsubscribe == ()
