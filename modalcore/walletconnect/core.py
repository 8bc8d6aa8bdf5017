"""The dApp side of the sign protocol as pure steps: state in, (state, outgoing messages,
topic changes, events) out. No I/O, no clock, no randomness: keys, ids and `now` come in as
arguments, so an engine slice can run these inside `update`.

Envelopes are opened here (deterministic); sealing needs a random IV, so outgoing payloads
leave as plaintext `Outgoing` records for the I/O shell to seal and publish.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from ..rules import limits as L
from . import errors, jsonrpc
from .auth import AUTH_METHOD, AuthError, AuthPayload, parse_result, request_params, session_namespaces
from .cacao_check import check_cacao
from .crypto import TYPE_1, EnvelopeError, KeyPair, decode_envelope, derive_sym_key, open_envelope, topic_of, unseal
from .errors import WalletConnectError
from .events import (Dropped, Event, Outgoing, PairingExpired, ProposalApproved, ProposalDeclined, ProposalExpired,
                     RequestTimedOut, ResponseReceived, SessionDeleted, SessionEvent, SessionExpired,
                     SessionExtended, SessionSettled, SessionUpdated)
from .jsonrpc import PayloadError, RpcFailure, RpcRequest, RpcResult
from .proposal import build_proposal
from .sign_rpc import (PARAMS, Metadata, Participant, SessionDeleteParams, SessionEventParams, SessionExtendParams,
                       SessionProposeResult, SessionSettleParams, SessionUpdateParams, dump)
from .state import (AuthRequestState, DappState, PairingState, PendingRequest, ProposalState, SessionState, session_chains,
                    session_methods)
from .tags import MAX_REQUEST_EXPIRY, MIN_REQUEST_EXPIRY, irn, request_ttl
from .uri import PAIRING_EXPIRY_MS, PairingUri, pairing_expiry

SESSION_EXPIRY = 7 * 86400  # seconds (SDK SESSION_EXPIRY)
PING_TIMEOUT = 30
SEEN_LIMIT = L.WC_SEEN_REQUESTS


@dataclass(frozen=True)
class Step:
    state: DappState
    outgoing: tuple[Outgoing, ...] = ()
    subscribe: tuple[str, ...] = ()
    unsubscribe: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()


@dataclass
class _Builder:
    state: DappState
    outgoing: list[Outgoing] = field(default_factory=list)
    subscribe: list[str] = field(default_factory=list)
    unsubscribe: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def step(self) -> Step:
        return Step(self.state, tuple(self.outgoing), tuple(self.subscribe), tuple(self.unsubscribe),
                    tuple(self.events))

    def send(self, topic: str, sym_key: str, payload: str, method: str, direction: Any,
             ttl: int | None = None) -> None:
        opts = irn(method, direction)
        self.outgoing.append(Outgoing(topic, payload, sym_key, opts.tag, ttl if ttl is not None else opts.ttl))

    def drop(self, topic: str, reason: str) -> Step:
        self.events.append(Dropped(topic, reason))
        return self.step()


def _update(state: DappState, **changes: object) -> DappState:
    return state.model_copy(update=changes)


def _without(mapping: dict[Any, Any], key: object) -> dict[Any, object]:
    return {k: v for k, v in mapping.items() if k != key}


# ---------- dApp-initiated steps ----------------------------------------------------------------

def create_pairing(state: DappState, sym_key: str, now_ms: int,
                   ttl_ms: int = PAIRING_EXPIRY_MS, methods: Sequence[str] = ()) -> tuple[Step, PairingUri]:
    """A new pairing (random `sym_key` from the caller) and its `wc:` URI, expiring in `ttl_ms`
    (behaviour.md §9's 240 s by default); `methods` go into the URI (`wc_sessionAuthenticate` for one-click
    sign-in, as the SDK's `authenticate()` pairs)."""
    topic = topic_of(sym_key)
    expiry = pairing_expiry(now_ms, ttl_ms)
    pairing = PairingState(topic=topic, sym_key=sym_key, expiry=expiry, methods=list(methods))
    new = _update(state, pairings={**state.pairings, topic: pairing})
    return Step(new, subscribe=(topic,)), PairingUri(topic, sym_key, expiry, methods=tuple(methods))


def propose(state: DappState, *, pairing_topic: str, key_pair: KeyPair, proposal_id: int,
            networks: Sequence[str], metadata: Metadata, now_ms: int, required: Sequence[str] = ()) -> Step:
    """wc_sessionPropose on the pairing topic."""
    pairing = state.pairings.get(pairing_topic)
    if pairing is None:
        raise WalletConnectError(errors.NO_SESSION_FOR_TOPIC, "No pairing for this topic")
    expiry = now_ms // 1000 + irn("wc_sessionPropose", "req").ttl
    params = build_proposal(networks=networks, public_key=key_pair.public_key, metadata=metadata,
                            pairing_topic=pairing_topic, proposal_id=proposal_id, expiry_timestamp=expiry,
                            required=required)
    chains = [c for ns in params.optional_namespaces.values() for c in ns.chains]
    proposal = ProposalState(id=proposal_id, pairing_topic=pairing_topic, private_key=key_pair.private_key,
                             public_key=key_pair.public_key, expiry=expiry, chains=chains)
    out = _Builder(_update(state, proposals={**state.proposals, proposal_id: proposal}))
    out.send(pairing_topic, pairing.sym_key, jsonrpc.request(proposal_id, "wc_sessionPropose", dump(params)),
             "wc_sessionPropose", "req")
    return out.step()


def authenticate(state: DappState, *, pairing_topic: str, key_pair: KeyPair, request_id: int, proposal_id: int,
                 networks: Sequence[str], metadata: Metadata, payload: AuthPayload, now_ms: int) -> Step:
    """One-click sign-in as the SDK's `authenticate()` sends it: wc_sessionAuthenticate on the
    pairing topic (its answer comes on sha256 of our public key, subscribed here) and, beside it,
    the fallback wc_sessionPropose with the same key, for wallets that do not support it."""
    pairing = state.pairings.get(pairing_topic)
    if pairing is None:
        raise WalletConnectError(errors.NO_SESSION_FOR_TOPIC, "No pairing for this topic")
    expiry = now_ms // 1000 + irn(AUTH_METHOD, "req").ttl
    response_topic = topic_of(key_pair.public_key)
    auth = AuthRequestState(id=request_id, pairing_topic=pairing_topic, response_topic=response_topic,
                            private_key=key_pair.private_key, public_key=key_pair.public_key,
                            proposal_id=proposal_id, expiry=expiry, payload=payload.model_dump(exclude_none=True))
    proposed = propose(state, pairing_topic=pairing_topic, key_pair=key_pair, proposal_id=proposal_id,
                       networks=networks, metadata=metadata, now_ms=now_ms)
    out = _Builder(_update(proposed.state, auths={**proposed.state.auths, request_id: auth}))
    params = request_params(payload, Participant(publicKey=key_pair.public_key, metadata=metadata), expiry)
    out.send(pairing_topic, pairing.sym_key, jsonrpc.request(request_id, AUTH_METHOD, params), AUTH_METHOD, "req")
    out.outgoing.extend(proposed.outgoing)
    out.subscribe.append(response_topic)
    return out.step()


def send_request(state: DappState, *, topic: str, request_id: int, chain_id: str, method: str,
                 params: object, now_ms: int, expiry: int | None = None) -> Step:
    """wc_sessionRequest (CAIP-27) on a settled session; refused here if the session does not
    permit the chain or the method."""
    session = _settled(state, topic)
    if chain_id not in session_chains(session):
        raise WalletConnectError(errors.UNAUTHORIZED_CHAIN, f"Unauthorized chain {chain_id}")
    if method not in session_methods(session):
        raise WalletConnectError(errors.UNAUTHORIZED_METHOD, f"Unauthorized method {method}")
    now = now_ms // 1000
    if expiry is not None and not now + MIN_REQUEST_EXPIRY <= expiry <= now + MAX_REQUEST_EXPIRY:
        raise WalletConnectError(errors.SESSION_REQUEST_EXPIRED, "Request expiry out of bounds")
    body: dict[str, object] = {"method": method, "params": params}
    if expiry is not None:
        body["expiryTimestamp"] = expiry
    deadline = expiry if expiry is not None else now + irn("wc_sessionRequest", "req").ttl
    out = _Builder(_track(state, request_id, topic, "wc_sessionRequest", deadline))
    out.send(topic, session.sym_key, jsonrpc.request(request_id, "wc_sessionRequest",
                                                     {"request": body, "chainId": chain_id}),
             "wc_sessionRequest", "req", ttl=request_ttl(expiry, now))
    return out.step()


def ping(state: DappState, *, topic: str, request_id: int, now_ms: int) -> Step:
    session = _settled(state, topic)
    out = _Builder(_track(state, request_id, topic, "wc_sessionPing", now_ms // 1000 + PING_TIMEOUT))
    out.send(topic, session.sym_key, jsonrpc.request(request_id, "wc_sessionPing", {}), "wc_sessionPing", "req")
    return out.step()


def extend(state: DappState, *, topic: str, request_id: int, now_ms: int) -> Step:
    """wc_sessionExtend to now + 7 days (applied locally at once, as the SDK does)."""
    session = _settled(state, topic)
    expiry = now_ms // 1000 + SESSION_EXPIRY
    sessions = {**state.sessions, topic: session.model_copy(update={"expiry": expiry})}
    tracked = _track(_update(state, sessions=sessions), request_id, topic, "wc_sessionExtend",
                     now_ms // 1000 + irn("wc_sessionExtend", "req").ttl)
    out = _Builder(tracked)
    out.send(topic, session.sym_key, jsonrpc.request(request_id, "wc_sessionExtend", {"expiry": expiry}),
             "wc_sessionExtend", "req")
    out.events.append(SessionExtended(topic, expiry))
    return out.step()


def delete(state: DappState, *, topic: str, request_id: int,
           reason: errors.RpcError = errors.DISCONNECTED) -> Step:
    """wc_sessionDelete to the wallet, and the session is gone here at once."""
    session = state.sessions.get(topic)
    if session is None:
        raise WalletConnectError(errors.NO_SESSION_FOR_TOPIC, "No session for this topic")
    out = _Builder(_forget_session(state, topic))
    out.send(topic, session.sym_key, jsonrpc.request(request_id, "wc_sessionDelete",
                                                     {"code": reason.code, "message": reason.message}),
             "wc_sessionDelete", "req")
    out.unsubscribe.append(topic)
    out.events.append(SessionDeleted(topic, reason.code, reason.message, by_peer=False))
    return out.step()


def expire(state: DappState, now_ms: int) -> Step:
    """Drop what has expired: requests (reported), proposals, unsettled pairings, sessions."""
    now = now_ms // 1000
    out = _Builder(state)
    for request in [r for r in state.requests.values() if r.expiry <= now]:
        out.state = _update(out.state, requests=_without(out.state.requests, request.id))
        out.events.append(RequestTimedOut(request.id, request.topic, request.method))
    for auth in [a for a in state.auths.values() if a.expiry <= now]:
        out.state = _update(out.state, auths=_without(out.state.auths, auth.id))
        out.unsubscribe.append(auth.response_topic)
    for proposal in [p for p in state.proposals.values() if p.expiry <= now]:
        out.state = _update(out.state, proposals=_without(out.state.proposals, proposal.id))
        out.events.append(ProposalExpired(proposal.id))
    for session in [s for s in state.sessions.values() if s.settled and s.expiry <= now]:
        out.state = _forget_session(out.state, session.topic)
        out.unsubscribe.append(session.topic)
        out.events.append(SessionExpired(session.topic))
    for pairing in [p for p in state.pairings.values() if p.expiry <= now and not p.active]:
        out.state = _update(out.state, pairings=_without(out.state.pairings, pairing.topic))
        out.unsubscribe.append(pairing.topic)
        out.events.append(PairingExpired(pairing.topic))
    return out.step()


def drop_unanswered(state: DappState) -> Step:
    """Forget the pairings no wallet answered on, and their proposals (a newer URI replaced them;
    so a visitor holds one pending pairing, however often a QR code is redrawn)."""
    out = _Builder(state)
    for pairing in [p for p in state.pairings.values() if not p.active]:
        out.state = _update(out.state, pairings=_without(out.state.pairings, pairing.topic))
        out.unsubscribe.append(pairing.topic)
        for proposal in [p for p in out.state.proposals.values() if p.pairing_topic == pairing.topic]:
            out.state = _update(out.state, proposals=_without(out.state.proposals, proposal.id))
            out.events.append(ProposalExpired(proposal.id))
        for auth in [a for a in out.state.auths.values() if a.pairing_topic == pairing.topic]:
            out.state = _update(out.state, auths=_without(out.state.auths, auth.id))
            out.unsubscribe.append(auth.response_topic)
    return out.step()


# ---------- messages from the wallet ------------------------------------------------------------

def receive(state: DappState, topic: str, message: str, now_ms: int) -> Step:
    """One relay message on `topic`: opened, parsed and acted on, or dropped with a reason."""
    out = _Builder(state)
    auth = state.auth_on(topic)
    if auth is not None:
        return _on_auth_message(out, auth, message, now_ms)
    key = state.key_for(topic)
    if key is None:
        return out.drop(topic, "unknown topic")
    try:
        payload = jsonrpc.parse_payload(unseal(message, key))
    except EnvelopeError as error:
        return out.drop(topic, f"undecryptable envelope ({error})")
    except PayloadError as error:
        return out.drop(topic, f"malformed payload ({error})")
    if isinstance(payload, RpcRequest):
        if payload.id in state.seen:
            return out.drop(topic, f"replayed request {payload.id}")
        out.state = _update(state, seen=(*state.seen, payload.id)[-SEEN_LIMIT:])
        return _on_request(out, topic, key, payload, now_ms)
    return _on_response(out, topic, payload, now_ms)


def _on_request(out: _Builder, topic: str, key: str, request: RpcRequest, now_ms: int) -> Step:
    method = request.method
    model = PARAMS.get(method)
    if method in ("wc_pairingPing", "wc_pairingDelete") and topic in out.state.pairings:
        if method == "wc_pairingDelete":
            out.state = _update(out.state, pairings=_without(out.state.pairings, topic))
            out.unsubscribe.append(topic)
        out.send(topic, key, jsonrpc.result(request.id, True), method, "res")
        return out.step()
    if model is None or method == "wc_sessionPropose":
        out.send(topic, key, jsonrpc.failure(request.id, errors.METHOD_UNSUPPORTED, f"Unsupported method {method}"),
                 method, "res")
        out.events.append(Dropped(topic, f"unsupported method {method}"))
        return out.step()
    session = out.state.sessions.get(topic)
    if session is None:
        return out.drop(topic, f"{method} outside a session")
    try:
        params: BaseModel = model.model_validate(request.params)
    except ValidationError as error:
        code = errors.INVALID_PARAMS_CODES.get(method, errors.INVALID_METHOD)
        out.send(topic, key, jsonrpc.failure(request.id, code, f"Invalid {method} params"), method, "res")
        out.events.append(Dropped(topic, f"invalid {method} params ({error.error_count()} error(s))"))
        return out.step()
    now = now_ms // 1000
    if isinstance(params, SessionSettleParams):
        if session.settled:
            return out.drop(topic, "settle on a settled session")
        if params.controller.public_key != session.peer_public_key or params.expiry <= now:
            out.send(topic, key, jsonrpc.failure(request.id, errors.SESSION_SETTLEMENT_FAILED, "Invalid settlement"),
                     method, "res")
            return out.drop(topic, "settlement from another controller or already expired")
        settled = session.model_copy(update={"settled": True, "namespaces": params.namespaces,
                                             "expiry": params.expiry, "peer": params.controller.metadata})
        pairing = out.state.pairings.get(session.pairing_topic)
        pairings = dict(out.state.pairings)
        if pairing is not None:
            pairings[pairing.topic] = pairing.model_copy(update={"active": True, "peer": params.controller.metadata})
        out.state = _update(out.state, sessions={**out.state.sessions, topic: settled}, pairings=pairings,
                            proposals=_without(out.state.proposals, session.proposal_id))
        out.send(topic, key, jsonrpc.result(request.id, True), method, "res")
        out.events.append(SessionSettled(settled))
        return out.step()
    if not session.settled:
        return out.drop(topic, f"{method} before the session settled")
    if isinstance(params, SessionUpdateParams):
        updated = session.model_copy(update={"namespaces": params.namespaces})
        out.state = _update(out.state, sessions={**out.state.sessions, topic: updated})
        out.events.append(SessionUpdated(updated))
    elif isinstance(params, SessionExtendParams):
        expiry = params.expiry if params.expiry is not None else now + SESSION_EXPIRY  # SDK: no params
        if not session.expiry <= expiry <= now + SESSION_EXPIRY:
            out.send(topic, key, jsonrpc.failure(request.id, errors.INVALID_EXTEND_REQUEST, "Invalid extend request"),
                     method, "res")
            return out.drop(topic, "extend beyond 7 days or backwards")
        extended = session.model_copy(update={"expiry": expiry})
        out.state = _update(out.state, sessions={**out.state.sessions, topic: extended})
        out.events.append(SessionExtended(topic, expiry))
    elif isinstance(params, SessionEventParams):
        out.events.append(SessionEvent(topic, params.event.name, params.event.data, params.chain_id))
    elif isinstance(params, SessionDeleteParams):
        out.state = _forget_session(out.state, topic)
        out.unsubscribe.append(topic)
        out.events.append(SessionDeleted(topic, params.code, params.message, by_peer=True))
    elif method == "wc_sessionRequest":
        out.send(topic, key, jsonrpc.failure(request.id, errors.METHOD_UNSUPPORTED, "A dApp takes no requests"),
                 method, "res")
        return out.drop(topic, "wc_sessionRequest sent to the dApp")
    out.send(topic, key, jsonrpc.result(request.id, True), method, "res")
    return out.step()


def _on_response(out: _Builder, topic: str, response: RpcResult | RpcFailure, now_ms: int) -> Step:
    proposal = out.state.proposals.get(response.id)
    if proposal is not None and proposal.pairing_topic == topic:
        return _on_proposal_response(out, proposal, response)
    pending = out.state.requests.get(response.id)
    if pending is None or pending.topic != topic:
        return out.drop(topic, f"response {response.id} to no request of ours")
    out.state = _update(out.state, requests=_without(out.state.requests, response.id))
    if isinstance(response, RpcResult):
        out.events.append(ResponseReceived(response.id, topic, pending.method, True, response.result))
    else:
        out.events.append(ResponseReceived(response.id, topic, pending.method, False, None,
                                           response.error.code, response.error.message))
    return out.step()


def _on_proposal_response(out: _Builder, proposal: ProposalState, response: RpcResult | RpcFailure) -> Step:
    if isinstance(response, RpcFailure):
        out.state = _update(out.state, proposals=_without(out.state.proposals, proposal.id))
        out.events.append(ProposalDeclined(proposal.id, response.error.code, response.error.message))
        return out.step()
    try:
        approval = SessionProposeResult.model_validate(response.result)
    except ValidationError:
        return out.drop(proposal.pairing_topic, "malformed proposal approval")
    sym_key = derive_sym_key(proposal.private_key, approval.responder_public_key)
    session_topic = topic_of(sym_key)
    session = SessionState(topic=session_topic, sym_key=sym_key, pairing_topic=proposal.pairing_topic,
                           proposal_id=proposal.id, self_public_key=proposal.public_key,
                           peer_public_key=approval.responder_public_key)
    pairing = out.state.pairings.get(proposal.pairing_topic)
    pairings = dict(out.state.pairings)
    if pairing is not None:
        pairings[pairing.topic] = pairing.model_copy(update={"active": True})
    out.state = _update(out.state, sessions={**out.state.sessions, session_topic: session}, pairings=pairings)
    out.subscribe.append(session_topic)
    out.events.append(ProposalApproved(proposal.id, session_topic))
    return out.step()


def _on_auth_message(out: _Builder, auth: AuthRequestState, message: str, now_ms: int) -> Step:
    """The wallet's answer to wc_sessionAuthenticate: a type 1 envelope whose sender key, with our
    private key, gives the key that opens it and the session's key."""
    topic = auth.response_topic
    try:
        envelope = decode_envelope(message)
        if envelope.type != TYPE_1 or envelope.sender_public_key is None:
            return out.drop(topic, "authenticate answer not in a type 1 envelope")
        key = derive_sym_key(auth.private_key, envelope.sender_public_key)
        payload = jsonrpc.parse_payload(open_envelope(envelope, key))
    except EnvelopeError as error:
        return out.drop(topic, f"undecryptable envelope ({error})")
    except PayloadError as error:
        return out.drop(topic, f"malformed payload ({error})")
    if isinstance(payload, RpcRequest) or payload.id != auth.id:
        return out.drop(topic, "not an answer to our authenticate request")
    if isinstance(payload, RpcFailure):
        out.state = _update(out.state, auths=_without(out.state.auths, auth.id))
        out.unsubscribe.append(topic)
        if payload.error.code == errors.METHOD_UNSUPPORTED:
            return out.step()  # the wallet answers the fallback proposal instead
        out.state = _update(out.state, proposals=_without(out.state.proposals, auth.proposal_id))
        out.events.append(ProposalDeclined(auth.proposal_id, payload.error.code, payload.error.message))
        return out.step()
    try:
        result = parse_result(payload.result)
        if result.responder.public_key != envelope.sender_public_key:
            raise AuthError("the responder key is not the envelope's sender key")
        request = AuthPayload.model_validate(auth.payload)
        for cacao in result.cacaos:
            check_cacao(cacao, request, now_ms)
        namespaces = session_namespaces(result.cacaos)
        if not namespaces:
            raise AuthError("the cacaos grant no method (no session)")
    except AuthError as error:
        out.state = _update(out.state, auths=_without(out.state.auths, auth.id),
                            proposals=_without(out.state.proposals, auth.proposal_id))
        out.unsubscribe.append(topic)
        out.events.append(ProposalDeclined(auth.proposal_id, errors.SESSION_SETTLEMENT_FAILED, errors.AUTH_REFUSED))
        return out.drop(topic, f"authenticate answer refused: {error}")
    sym_key = derive_sym_key(auth.private_key, result.responder.public_key)
    session = SessionState(topic=topic_of(sym_key), sym_key=sym_key, pairing_topic=auth.pairing_topic,
                           proposal_id=auth.proposal_id, self_public_key=auth.public_key,
                           peer_public_key=result.responder.public_key, peer=result.responder.metadata,
                           namespaces=namespaces, expiry=now_ms // 1000 + SESSION_EXPIRY, settled=True,
                           cacaos=[c.model_dump(by_alias=True, exclude_none=True) for c in result.cacaos])
    pairings = dict(out.state.pairings)
    pairing = pairings.get(auth.pairing_topic)
    if pairing is not None:
        pairings[pairing.topic] = pairing.model_copy(update={"active": True, "peer": result.responder.metadata})
    out.state = _update(out.state, sessions={**out.state.sessions, session.topic: session}, pairings=pairings,
                        auths=_without(out.state.auths, auth.id),
                        proposals=_without(out.state.proposals, auth.proposal_id))
    out.unsubscribe.append(topic)
    out.subscribe.append(session.topic)
    out.events.append(SessionSettled(session))
    return out.step()


# ---------- helpers --------------------------------------------------------------------------------

def _settled(state: DappState, topic: str) -> SessionState:
    session = state.sessions.get(topic)
    if session is None or not session.settled:
        raise WalletConnectError(errors.NO_SESSION_FOR_TOPIC, "No session for this topic")
    return session


def _track(state: DappState, request_id: int, topic: str, method: str, expiry: int) -> DappState:
    pending = PendingRequest(id=request_id, topic=topic, method=method, expiry=expiry)
    return _update(state, requests={**state.requests, request_id: pending})


def _forget_session(state: DappState, topic: str) -> DappState:
    return _update(state, sessions=_without(state.sessions, topic),
                   requests={k: r for k, r in state.requests.items() if r.topic != topic})
