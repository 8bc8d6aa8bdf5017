"""One-click sign-in, the pure parts (no I/O): the ReCap, the message a CACAO signed and the session
namespaces against vectors computed by the SDK's own @walletconnect/utils
(walletpeer/auth_vectors.mjs → sdk_auth_vectors.json); the authenticate step's wire (pairing URI
methods, the request and the fallback proposal with their tags and TTLs); the wallet's answer in a
type 1 envelope, played with the same primitives and real eth-account signatures (the real wallet
is in test_authenticate_peer.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.rules import limits as L
from modalcore.siwx.domain.message import SiwxMessage
from modalcore.walletconnect.backend import core, jsonrpc
from modalcore.walletconnect.backend.cacao_check import check_cacao
from modalcore.walletconnect.domain.auth import (AuthError, AuthPayload, Cacao, build_payload, cacao_message,
                                          decode_recap, request_recap, session_namespaces, signed_in)
from modalcore.walletconnect.backend.crypto import KeyPair, derive_sym_key, seal, topic_of, unseal
from modalcore.walletconnect.backend.events import Dropped, ProposalDeclined, SessionSettled
from modalcore.walletconnect.domain.proposal import EIP155_METHODS
from modalcore.walletconnect.domain.sign_rpc import Metadata
from modalcore.walletconnect.backend.state import DappState
from modalcore.walletconnect.backend.uri import parse_uri

VECTORS = json.loads((Path(__file__).parent / "sdk_auth_vectors.json").read_text())
KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"  # Hardhat #0
OTHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
NOW = 1_795_000_000_000
META = Metadata(name="dApp")
WALLET = Metadata(name="Wallet")
SYM = "11" * 32
CHAINS = ["eip155:31337", "eip155:31338"]


def test_the_recap_and_the_cacao_message_are_the_sdks() -> None:
    """Rule: the ReCap of the proposed methods, the message formatMessage builds (a populated
    statement, or the recap statement added to a bare one) and the namespaces built from CACAOs
    are byte for byte the SDK's; the message is the engine's one EIP-4361 builder's text."""
    assert request_recap("eip155", VECTORS["methods"]) == VECTORS["recap"]
    populated = Cacao.model_validate(VECTORS["cacaos"][0])
    message = cacao_message(populated.p)
    assert isinstance(message, SiwxMessage) and message.to_text() == VECTORS["message"]
    bare = Cacao.model_validate({"h": {"t": "caip122"}, "s": {"t": "eip191", "s": "0x"},
                                 "p": {**VECTORS["bare"], "iss": populated.p.iss}})
    assert cacao_message(bare.p).to_text() == VECTORS["unpopulated_message"]
    namespaces = session_namespaces([Cacao.model_validate(c) for c in VECTORS["cacaos"]])
    assert {k: v.model_dump(exclude_none=True) for k, v in namespaces.items()} == VECTORS["namespaces"]


def _payload(nonce: str = "Nonce12345678", **overrides: Any) -> AuthPayload:
    payload = build_payload(chains=CHAINS, methods=EIP155_METHODS, domain="app.example", aud="https://app.example",
                            nonce=nonce, now_ms=NOW, statement="Sign in to continue", ttl_ms=86_400_000)
    return payload.model_copy(update=overrides)


def _authenticating() -> tuple[core.Step, KeyPair, str]:
    step, uri = core.create_pairing(DappState(), SYM, NOW, methods=("wc_sessionAuthenticate",))
    keys = KeyPair.from_private("22" * 32)
    step = core.authenticate(step.state, pairing_topic=uri.topic, key_pair=keys, request_id=41, proposal_id=42,
                             networks=CHAINS, metadata=META, payload=_payload(), now_ms=NOW)
    return step, keys, uri.format()


def test_the_authenticate_request_goes_beside_the_fallback_proposal_as_the_sdk_sends_them() -> None:
    """Rule: the pairing URI names methods=wc_sessionAuthenticate; on the pairing topic go the
    wc_sessionAuthenticate request (tag 1116, TTL 3600 s, authPayload caip122 with nonce,
    domain, aud, chains, iat, exp and a ReCap last, the requester's key, expiryTimestamp now +
    1 h) and the fallback wc_sessionPropose (tag 1100) with the same public key; the answer's
    topic (sha256 of that key) is subscribed."""
    step, keys, uri = _authenticating()
    assert parse_uri(uri).methods == ("wc_sessionAuthenticate",)
    assert parse_qs(uri.split("?", 1)[1])["methods"] == ["wc_sessionAuthenticate"]
    auth, propose = step.outgoing
    assert (auth.topic, auth.tag, auth.ttl) == (topic_of(SYM), 1116, 3600)
    assert (propose.topic, propose.tag, propose.ttl) == (topic_of(SYM), 1100, 300)
    request = json.loads(unseal(seal(auth.payload, SYM), SYM))
    assert request["id"] == 41 and request["method"] == "wc_sessionAuthenticate"
    params = request["params"]
    assert params["requester"]["publicKey"] == keys.public_key and params["expiryTimestamp"] == NOW // 1000 + 3600
    payload = params["authPayload"]
    assert payload["type"] == "caip122" and payload["version"] == "1" and payload["chains"] == CHAINS
    assert (payload["domain"], payload["aud"], payload["nonce"]) == ("app.example", "https://app.example", "Nonce12345678")
    assert payload["iat"] == "2026-11-18T11:06:40.000Z" and payload["exp"] == "2026-11-19T11:06:40.000Z"
    assert set(decode_recap(payload["resources"][-1])["att"]["eip155"]) == {f"request/{m}" for m in EIP155_METHODS}
    proposal = json.loads(propose.payload)
    assert proposal["method"] == "wc_sessionPropose" and proposal["id"] == 42
    assert proposal["params"]["proposer"]["publicKey"] == keys.public_key
    assert step.subscribe == (topic_of(keys.public_key),)
    assert step.state.auths[41].response_topic == topic_of(keys.public_key)


def _cacao(chain: str, payload: AuthPayload, key: str = KEY, **changes: Any) -> dict[str, Any]:
    p: dict[str, Any] = {"iss": f"did:pkh:{chain}:{ADDRESS}", "domain": payload.domain, "aud": payload.aud,
                         "version": "1", "nonce": payload.nonce, "iat": payload.iat, "exp": payload.exp,
                         "statement": payload.statement, "resources": payload.resources, **changes}
    text = cacao_message(Cacao.model_validate({"h": {"t": "caip122"}, "p": p, "s": {"t": "eip191", "s": "0x"}}).p)
    signature = "0x" + bytes(Account.sign_message(encode_defunct(text=text.to_text()), key).signature).hex()
    return {"h": {"t": "caip122"}, "p": p, "s": {"t": "eip191", "s": signature}}


def _answer(state: DappState, dapp: KeyPair, result: Any, *, error: bool = False, type1: bool = True) -> core.Step:
    wallet = KeyPair.from_private("33" * 32)
    key = derive_sym_key(wallet.private_key, dapp.public_key)
    body = jsonrpc.failure(41, result, "nope") if error else jsonrpc.result(41, result)
    message = seal(body, key, sender_public_hex=wallet.public_key if type1 else None)
    return core.receive(state, topic_of(dapp.public_key), message, NOW + 5000)


def test_a_verified_answer_makes_the_session_from_the_cacaos() -> None:
    """Rule: the answer (type 1 envelope) gives the session key from the responder's key; every
    CACAO is checked; the session is settled with the accounts of the issuers on their chains and
    the recap's methods; the proposal is gone, the pairing active; a replay is dropped."""
    step, dapp, _ = _authenticating()
    wallet = KeyPair.from_private("33" * 32)
    cacaos = [_cacao(chain, _payload()) for chain in CHAINS]
    result = {"cacaos": cacaos, "responder": {"publicKey": wallet.public_key, "metadata": {"name": "Wallet"}}}
    done = _answer(step.state, dapp, result)
    settled = [e for e in done.events if isinstance(e, SessionSettled)]
    assert len(settled) == 1, done.events
    session = settled[0].session
    assert session.sym_key == derive_sym_key(dapp.private_key, wallet.public_key)
    assert session.topic == topic_of(session.sym_key) and session.proposal_id == 42 and session.settled
    assert session.accounts == [f"{c}:{ADDRESS}" for c in CHAINS]
    assert set(session.namespaces["eip155"].methods) == set(EIP155_METHODS)
    assert done.state.proposals == {} and done.state.auths == {}
    assert done.subscribe == (session.topic,) and done.unsubscribe == (topic_of(dapp.public_key),)
    signed = signed_in(session.cacaos, "eip155:31338")
    assert signed is not None and "Chain ID: 31338" in signed["message"]
    replay = _answer(done.state, dapp, result)
    assert [type(e) for e in replay.events] == [Dropped] and replay.state == done.state


@pytest.mark.parametrize("case", ["other key", "wrong nonce", "expired", "other domain", "other aud",
                                  "unrequested chain", "malformed", "too many", "not type 1"])
def test_a_cacao_that_does_not_answer_the_request_is_refused(case: str) -> None:
    """Rule: a signature by another key, another nonce, domain or aud, an expired CACAO, a chain
    not requested, a malformed result, more CACAOs than the bound (L.WC_AUTH_CACAOS) or an answer
    outside a type 1 envelope: refused with a reason, no session, the proposal withdrawn (the
    visitor tries again)."""
    step, dapp, _ = _authenticating()
    wallet = KeyPair.from_private("33" * 32)
    payload = _payload()
    makers: dict[str, Callable[[], Any]] = {
        "other key": lambda: _cacao("eip155:31337", payload, OTHER_KEY),
        "wrong nonce": lambda: _cacao("eip155:31337", payload, nonce="OtherNonce1234"),
        "expired": lambda: _cacao("eip155:31337", payload, exp="2026-11-18T11:06:41.000Z"),
        "other domain": lambda: _cacao("eip155:31337", payload, domain="evil.example"),
        "other aud": lambda: _cacao("eip155:31337", payload, aud="https://evil.example"),
        "unrequested chain": lambda: _cacao("eip155:1", payload),
        "malformed": lambda: "not a cacao",
        "too many": lambda: _cacao("eip155:31337", payload),
        "not type 1": lambda: _cacao("eip155:31337", payload),
    }
    cacao = makers[case]()
    cacaos = [cacao] * (L.WC_AUTH_CACAOS + 1 if case == "too many" else 1)
    result = {"cacaos": cacaos, "responder": {"publicKey": wallet.public_key, "metadata": {"name": "Wallet"}}}
    done = _answer(step.state, dapp, result, type1=case != "not type 1")
    assert done.state.sessions == {}
    dropped = [e for e in done.events if isinstance(e, Dropped)]
    assert len(dropped) == 1
    if case == "not type 1":
        assert "type 1" in dropped[0].reason or "undecryptable" in dropped[0].reason
        return
    assert "refused" in dropped[0].reason
    declined = [e for e in done.events if isinstance(e, ProposalDeclined)]
    assert declined and declined[0].proposal_id == 42 and declined[0].code == 7000
    assert done.state.auths == {} and done.state.proposals == {}


def test_the_wallets_rejection_declines_and_an_unsupported_method_leaves_the_fallback() -> None:
    """Rule: a rejection (5000) declines the proposal; METHOD_UNSUPPORTED (10001) only ends the
    authenticate request: the fallback proposal is still answered."""
    step, dapp, _ = _authenticating()
    rejected = _answer(step.state, dapp, 5000, error=True)
    assert [e.code for e in rejected.events if isinstance(e, ProposalDeclined)] == [5000]
    unsupported = _answer(step.state, dapp, 10001, error=True)
    assert unsupported.events == () and 42 in unsupported.state.proposals and unsupported.state.auths == {}


def test_check_cacao_refuses_an_eip1271_signature_it_cannot_check_without_a_chain() -> None:
    cacao = Cacao.model_validate({**_cacao("eip155:31337", _payload()), "s": {"t": "eip1271", "s": "0x00"}})
    with pytest.raises(AuthError):
        check_cacao(cacao, _payload(), NOW)
