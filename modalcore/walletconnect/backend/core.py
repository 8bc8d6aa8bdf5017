"""The dApp side of the sign protocol as pure steps: state in, (state, outgoing messages,
topic changes, events) out. No I/O, no clock, no randomness: keys, ids and `now` come in as
arguments, so an engine slice can run these inside `update`.

Envelopes are opened here (deterministic); sealing needs a random IV, so outgoing payloads
leave as plaintext `Outgoing` records for the I/O shell to seal and publish.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

from ...rules import limits as L
from ..domain import errors
from . import jsonrpc
from ..domain.auth import AUTH_METHOD, AuthPayload, request_params
from .auth_answer import on_auth_message
from .crypto import EnvelopeError, KeyPair, derive_sym_key, topic_of, unseal
from ..domain.errors import WalletConnectError
from .events import (Dropped, PairingExpired, ProposalApproved, ProposalDeclined, ProposalExpired,
                     RequestTimedOut, ResponseReceived, SessionDeleted, SessionEvent, SessionExpired,
                     SessionExtended, SessionSettled, SessionUpdated)
from .jsonrpc import PayloadError, RpcFailure, RpcRequest, RpcResult
from ..domain.proposal import build_proposal
from ..domain.sign_rpc import (PARAMS, Metadata, Participant, SessionDeleteParams, SessionEventParams, SessionExtendParams,
                       SessionProposeResult, SessionSettleParams, SessionUpdateParams, dump)
from .state import (AuthRequestState, DappState, PairingState, ProposalState, SessionState, session_chains,
                    session_methods)
from .steps import SESSION_EXPIRY, Builder, changed, forget_session, settled_session, track, without
from .steps import Step as Step  # re-exported: what every step returns (signclient, tests)
from .tags import MAX_REQUEST_EXPIRY, MIN_REQUEST_EXPIRY, irn, request_ttl
from .uri import PAIRING_EXPIRY_MS, PairingUri, pairing_expiry

PING_TIMEOUT = 30
SEEN_LIMIT = L.WC_SEEN_REQUESTS


# ---------- dApp-initiated steps ----------------------------------------------------------------

def create_pairing(state: DappState, sym_key: str, now_ms: int,
                   ttl_ms: int = PAIRING_EXPIRY_MS, methods: Sequence[str] = ()) -> tuple[Step, PairingUri]:
    """A new pairing (random `sym_key` from the caller) and its `wc:` URI, expiring in `ttl_ms`
    (behaviour.md §9's 240 s by default); `methods` go into the URI (`wc_sessionAuthenticate` for one-click
    sign-in, as the SDK's `authenticate()` pairs)."""
    topic = topic_of(sym_key)
    expiry = pairing_expiry(now_ms, ttl_ms)
    pairing = PairingState(topic=topic, sym_key=sym_key, expiry=expiry, methods=list(methods))
    new = changed(state, pairings={**state.pairings, topic: pairing})
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
    out = Builder(changed(state, proposals={**state.proposals, proposal_id: proposal}))
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
    out = Builder(changed(proposed.state, auths={**proposed.state.auths, request_id: auth}))
    params = request_params(payload, Participant(publicKey=key_pair.public_key, metadata=metadata), expiry)
    out.send(pairing_topic, pairing.sym_key, jsonrpc.request(request_id, AUTH_METHOD, params), AUTH_METHOD, "req")
    out.outgoing.extend(proposed.outgoing)
    out.subscribe.append(response_topic)
    return out.step()


def send_request(state: DappState, *, topic: str, request_id: int, chain_id: str, method: str,
                 params: object, now_ms: int, expiry: int | None = None) -> Step:
    """wc_sessionRequest (CAIP-27) on a settled session; refused here if the session does not
    permit the chain or the method."""
    session = settled_session(state, topic)
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
    out = Builder(track(state, request_id, topic, "wc_sessionRequest", deadline))
    out.send(topic, session.sym_key, jsonrpc.request(request_id, "wc_sessionRequest",
                                                     {"request": body, "chainId": chain_id}),
             "wc_sessionRequest", "req", ttl=request_ttl(expiry, now))
    return out.step()


def ping(state: DappState, *, topic: str, request_id: int, now_ms: int) -> Step:
    session = settled_session(state, topic)
    out = Builder(track(state, request_id, topic, "wc_sessionPing", now_ms // 1000 + PING_TIMEOUT))
    out.send(topic, session.sym_key, jsonrpc.request(request_id, "wc_sessionPing", {}), "wc_sessionPing", "req")
    return out.step()


def extend(state: DappState, *, topic: str, request_id: int, now_ms: int) -> Step:
    """wc_sessionExtend to now + 7 days (applied locally at once, as the SDK does)."""
    session = settled_session(state, topic)
    expiry = now_ms // 1000 + SESSION_EXPIRY
    sessions = {**state.sessions, topic: session.model_copy(update={"expiry": expiry})}
    tracked = track(changed(state, sessions=sessions), request_id, topic, "wc_sessionExtend",
                     now_ms // 1000 + irn("wc_sessionExtend", "req").ttl)
    out = Builder(tracked)
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
    out = Builder(forget_session(state, topic))
    out.send(topic, session.sym_key, jsonrpc.request(request_id, "wc_sessionDelete",
                                                     {"code": reason.code, "message": reason.message}),
             "wc_sessionDelete", "req")
    out.unsubscribe.append(topic)
    out.events.append(SessionDeleted(topic, reason.code, reason.message, by_peer=False))
    return out.step()


def expire(state: DappState, now_ms: int) -> Step:
    """Drop what has expired: requests (reported), proposals, unsettled pairings, sessions."""
    now = now_ms // 1000
    out = Builder(state)
    for request in [r for r in state.requests.values() if r.expiry <= now]:
        out.state = changed(out.state, requests=without(out.state.requests, request.id))
        out.events.append(RequestTimedOut(request.id, request.topic, request.method))
    for auth in [a for a in state.auths.values() if a.expiry <= now]:
        out.state = changed(out.state, auths=without(out.state.auths, auth.id))
        out.unsubscribe.append(auth.response_topic)
    for proposal in [p for p in state.proposals.values() if p.expiry <= now]:
        out.state = changed(out.state, proposals=without(out.state.proposals, proposal.id))
        out.events.append(ProposalExpired(proposal.id))
    for session in [s for s in state.sessions.values() if s.settled and s.expiry <= now]:
        out.state = forget_session(out.state, session.topic)
        out.unsubscribe.append(session.topic)
        out.events.append(SessionExpired(session.topic))
    for pairing in [p for p in state.pairings.values() if p.expiry <= now and not p.active]:
        out.state = changed(out.state, pairings=without(out.state.pairings, pairing.topic))
        out.unsubscribe.append(pairing.topic)
        out.events.append(PairingExpired(pairing.topic))
    return out.step()


def drop_unanswered(state: DappState) -> Step:
    """Forget the pairings no wallet answered on, and their proposals (a newer URI replaced them;
    so a visitor holds one pending pairing, however often a QR code is redrawn)."""
    out = Builder(state)
    for pairing in [p for p in state.pairings.values() if not p.active]:
        out.state = changed(out.state, pairings=without(out.state.pairings, pairing.topic))
        out.unsubscribe.append(pairing.topic)
        for proposal in [p for p in out.state.proposals.values() if p.pairing_topic == pairing.topic]:
            out.state = changed(out.state, proposals=without(out.state.proposals, proposal.id))
            out.events.append(ProposalExpired(proposal.id))
        for auth in [a for a in out.state.auths.values() if a.pairing_topic == pairing.topic]:
            out.state = changed(out.state, auths=without(out.state.auths, auth.id))
            out.unsubscribe.append(auth.response_topic)
    return out.step()


# ---------- messages from the wallet ------------------------------------------------------------

def receive(state: DappState, topic: str, message: str, now_ms: int) -> Step:
    """One relay message on `topic`: opened, parsed and acted on, or dropped with a reason."""
    out = Builder(state)
    auth = state.auth_on(topic)
    if auth is not None:
        return on_auth_message(out, auth, message, now_ms)
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
        out.state = changed(state, seen=(*state.seen, payload.id)[-SEEN_LIMIT:])
        return _on_request(out, topic, key, payload, now_ms)
    return _on_response(out, topic, payload, now_ms)


def _on_request(out: Builder, topic: str, key: str, request: RpcRequest, now_ms: int) -> Step:
    method = request.method
    model = PARAMS.get(method)
    if method in ("wc_pairingPing", "wc_pairingDelete") and topic in out.state.pairings:
        if method == "wc_pairingDelete":
            out.state = changed(out.state, pairings=without(out.state.pairings, topic))
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
        out.state = changed(out.state, sessions={**out.state.sessions, topic: settled}, pairings=pairings,
                            proposals=without(out.state.proposals, session.proposal_id))
        out.send(topic, key, jsonrpc.result(request.id, True), method, "res")
        out.events.append(SessionSettled(settled))
        return out.step()
    if not session.settled:
        return out.drop(topic, f"{method} before the session settled")
    if isinstance(params, SessionUpdateParams):
        updated = session.model_copy(update={"namespaces": params.namespaces})
        out.state = changed(out.state, sessions={**out.state.sessions, topic: updated})
        out.events.append(SessionUpdated(updated))
    elif isinstance(params, SessionExtendParams):
        expiry = params.expiry if params.expiry is not None else now + SESSION_EXPIRY  # SDK: no params
        if not session.expiry <= expiry <= now + SESSION_EXPIRY:
            out.send(topic, key, jsonrpc.failure(request.id, errors.INVALID_EXTEND_REQUEST, "Invalid extend request"),
                     method, "res")
            return out.drop(topic, "extend beyond 7 days or backwards")
        extended = session.model_copy(update={"expiry": expiry})
        out.state = changed(out.state, sessions={**out.state.sessions, topic: extended})
        out.events.append(SessionExtended(topic, expiry))
    elif isinstance(params, SessionEventParams):
        out.events.append(SessionEvent(topic, params.event.name, params.event.data, params.chain_id))
    elif isinstance(params, SessionDeleteParams):
        out.state = forget_session(out.state, topic)
        out.unsubscribe.append(topic)
        out.events.append(SessionDeleted(topic, params.code, params.message, by_peer=True))
    elif method == "wc_sessionRequest":
        out.send(topic, key, jsonrpc.failure(request.id, errors.METHOD_UNSUPPORTED, "A dApp takes no requests"),
                 method, "res")
        return out.drop(topic, "wc_sessionRequest sent to the dApp")
    out.send(topic, key, jsonrpc.result(request.id, True), method, "res")
    return out.step()


def _on_response(out: Builder, topic: str, response: RpcResult | RpcFailure, now_ms: int) -> Step:
    proposal = out.state.proposals.get(response.id)
    if proposal is not None and proposal.pairing_topic == topic:
        return _on_proposal_response(out, proposal, response)
    pending = out.state.requests.get(response.id)
    if pending is None or pending.topic != topic:
        return out.drop(topic, f"response {response.id} to no request of ours")
    out.state = changed(out.state, requests=without(out.state.requests, response.id))
    if isinstance(response, RpcResult):
        out.events.append(ResponseReceived(response.id, topic, pending.method, True, response.result))
    else:
        out.events.append(ResponseReceived(response.id, topic, pending.method, False, None,
                                           response.error.code, response.error.message))
    return out.step()


def _on_proposal_response(out: Builder, proposal: ProposalState, response: RpcResult | RpcFailure) -> Step:
    if isinstance(response, RpcFailure):
        out.state = changed(out.state, proposals=without(out.state.proposals, proposal.id))
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
    out.state = changed(out.state, sessions={**out.state.sessions, session_topic: session}, pairings=pairings)
    out.subscribe.append(session_topic)
    out.events.append(ProposalApproved(proposal.id, session_topic))
    return out.step()
