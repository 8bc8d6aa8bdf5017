"""The wallet's answer to wc_sessionAuthenticate (one-click auth), as a pure step of core.py."""

from __future__ import annotations

from ..domain import errors
from . import jsonrpc
from ..domain.auth import AuthError, AuthPayload, parse_result, session_namespaces
from .cacao_check import check_cacao
from .crypto import TYPE_1, EnvelopeError, decode_envelope, derive_sym_key, open_envelope, topic_of
from .events import ProposalDeclined, SessionSettled
from .jsonrpc import PayloadError, RpcFailure, RpcRequest
from .state import AuthRequestState, SessionState
from .steps import SESSION_EXPIRY, Builder, Step, changed, without


def on_auth_message(out: Builder, auth: AuthRequestState, message: str, now_ms: int) -> Step:
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
        out.state = changed(out.state, auths=without(out.state.auths, auth.id))
        out.unsubscribe.append(topic)
        if payload.error.code == errors.METHOD_UNSUPPORTED:
            return out.step()  # the wallet answers the fallback proposal instead
        out.state = changed(out.state, proposals=without(out.state.proposals, auth.proposal_id))
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
        out.state = changed(out.state, auths=without(out.state.auths, auth.id),
                            proposals=without(out.state.proposals, auth.proposal_id))
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
    out.state = changed(out.state, sessions={**out.state.sessions, session.topic: session}, pairings=pairings,
                        auths=without(out.state.auths, auth.id),
                        proposals=without(out.state.proposals, auth.proposal_id))
    out.unsubscribe.append(topic)
    out.subscribe.append(session.topic)
    out.events.append(SessionSettled(session))
    return out.step()
