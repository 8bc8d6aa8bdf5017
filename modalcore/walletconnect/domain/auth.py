"""One-click sign-in: `wc_sessionAuthenticate` (walletconnect-specs sign/session-authenticate,
CAIP-122 / EIP-4361 CACAOs, ReCaps), as the JS SDK 2.25 sends and checks it.

The dApp sends an `authPayload` (domain, aud, nonce, chains, statement, iat, exp, resources with
a ReCap granting `request/<method>` for `eip155`) and its requester key; the wallet answers with
one CACAO per chain it signs in on, each an EIP-191 signature over the EIP-4361 message built
from the payload (`formatMessage`). Here, pure (no clock, no randomness): the ReCap encoding,
the request params, the typed answer, the message a CACAO signed rebuilt with the engine's one
EIP-4361 builder (`siwx.message.SiwxMessage`), the checks that bind a CACAO to the request
(`isCacaoBoundToRequest`) and its signature, and the session namespaces the SDK derives from
the CACAOs (`buildNamespacesFromAuth`).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...rules import limits as L
from ...siwx.domain.grammar import SiwxMessageError
from ...siwx.domain.message import SiwxMessage, iso_from_ms
from .sign_rpc import Participant, SessionNamespace

AUTH_METHOD = "wc_sessionAuthenticate"
RECAP_PREFIX = "urn:recap:"
RECAP_STATEMENT = "I further authorize the stated URI to perform the following actions on my behalf: "
EVENTS = ["chainChanged", "accountsChanged"]
MAX_CACAOS = L.WC_AUTH_CACAOS
MAX_RESOURCES = L.WC_AUTH_RESOURCES
MAX_RECAP_CHARS = L.WC_AUTH_RECAP_CHARS


class AuthError(ValueError):
    """A CACAO or an authenticate answer that must be refused (`reason` is logged)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class AuthPayload(_Model):
    """The `authPayload` of the request (what the wallet signs, per chain)."""

    type: str = "caip122"
    chains: list[str] = Field(max_length=64)
    statement: str = Field(default="", max_length=4096)
    aud: str = Field(max_length=2048)
    domain: str = Field(max_length=256)
    version: str = "1"
    nonce: str = Field(max_length=128)
    iat: str = Field(max_length=64)
    exp: str | None = Field(default=None, max_length=64)
    nbf: str | None = Field(default=None, max_length=64)
    resources: list[str] = Field(default_factory=list, max_length=MAX_RESOURCES)


class CacaoHeader(_Model):
    t: str = Field(max_length=32)


class CacaoPayload(_Model):
    iss: str = Field(max_length=256)
    domain: str = Field(max_length=256)
    aud: str | None = Field(default=None, max_length=2048)
    uri: str | None = Field(default=None, max_length=2048)
    version: str = Field(max_length=8)
    nonce: str = Field(max_length=128)
    iat: str = Field(max_length=64)
    nbf: str | None = Field(default=None, max_length=64)
    exp: str | None = Field(default=None, max_length=64)
    statement: str | None = Field(default=None, max_length=4096)
    request_id: str | None = Field(default=None, alias="requestId", max_length=256)
    resources: list[str] | None = Field(default=None, max_length=MAX_RESOURCES)


class CacaoSignature(_Model):
    t: str = Field(max_length=32)
    s: str = Field(max_length=4096)
    m: str | None = Field(default=None, max_length=256)


class Cacao(_Model):
    h: CacaoHeader
    p: CacaoPayload
    s: CacaoSignature


class AuthenticateResult(_Model):
    """The wallet's approval: its CACAOs and its responder key (the session key's other half)."""

    cacaos: list[Cacao] = Field(min_length=1, max_length=MAX_CACAOS)
    responder: Participant


# ---------- ReCaps ----------------------------------------------------------------------------------

def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").replace("=", "")


def encode_recap(recap: dict[str, object]) -> str:
    """`urn:recap:` + unpadded base64 of the recap's JSON (as JSON.stringify writes it)."""
    return RECAP_PREFIX + _b64(json.dumps(recap, separators=(",", ":"), ensure_ascii=False).encode())


def request_recap(namespace: str, methods: Sequence[str]) -> str:
    """The SDK's `createEncodedRecap(namespace, "request", methods)`: actions sorted, no limits."""
    actions: dict[str, list[dict[str, object]]] = {f"request/{method}": [{}] for method in sorted(set(methods))}
    return encode_recap({"att": {namespace: actions}})


def decode_recap(resource: str) -> dict[str, Any]:
    """The recap of a `urn:recap:` resource; AuthError unless it is a valid recap."""
    if not resource.startswith(RECAP_PREFIX) or len(resource) > MAX_RECAP_CHARS:
        raise AuthError("not a recap resource")
    body = resource[len(RECAP_PREFIX):]
    try:
        recap = json.loads(base64.b64decode(body + "=" * (-len(body) % 4), validate=True))
    except (binascii.Error, ValueError) as error:
        raise AuthError("recap is not base64 JSON") from error
    att = recap.get("att") if isinstance(recap, dict) else None
    if not isinstance(att, dict) or not att:
        raise AuthError("recap without resources")
    for abilities in att.values():
        if not isinstance(abilities, dict) or not abilities:
            raise AuthError("recap resource must be a non-empty object")
        for limits in abilities.values():
            if not isinstance(limits, list) or not limits or not all(isinstance(x, dict) for x in limits):
                raise AuthError("recap limits must be a non-empty array of objects")
    return {"att": att}


def recap_of(resources: Sequence[str] | None) -> dict[str, object] | None:
    """The recap in the last resource (ReCaps put it last), if it is one."""
    if not resources or RECAP_PREFIX not in resources[-1]:
        return None
    return decode_recap(resources[-1])


def recap_statement(statement: str | None, recap: dict[str, Any]) -> str:
    """The SDK's `formatStatementFromRecap`: the statement followed by the recap's actions."""
    statement = statement or ""
    if RECAP_STATEMENT in statement:
        return statement
    parts: list[str] = []
    counter = 0
    for resource, abilities in recap["att"].items():
        pairs = [(key.split("/")[0], key.split("/")[1] if "/" in key else "") for key in abilities]
        grouped: dict[str, list[str]] = {}
        for ability, action in sorted(pairs, key=lambda pair: pair[1]):
            grouped.setdefault(ability, []).append(action)
        texts = []
        for ability, names in grouped.items():
            counter += 1
            listed = "', '".join(names)
            texts.append(f"({counter}) '{ability}': '{listed}' for '{resource}'.")
        parts.append(", ".join(texts).replace(".,", ".", 1))
    text = RECAP_STATEMENT + " ".join(parts)
    return f"{statement} {text}" if statement else text


def recap_methods(recap: dict[str, Any]) -> list[str]:
    """The eip155 methods a recap grants (`getMethodsFromRecap`)."""
    abilities = recap["att"].get("eip155") or {}
    return [key.split("/")[1] for key in abilities if "/" in key]


def recap_chains(recap: dict[str, Any]) -> list[str]:
    """The chains a recap's limits name (`getChainsFromRecap`)."""
    chains: list[str] = []
    for abilities in recap["att"].values():
        for limits in abilities.values():
            named = limits[0].get("chains") if limits else None
            for chain in named if isinstance(named, list) else []:
                if isinstance(chain, str) and chain not in chains:
                    chains.append(chain)
    return chains


# ---------- the request -----------------------------------------------------------------------------

def build_payload(*, chains: Sequence[str], methods: Sequence[str], domain: str, aud: str, nonce: str,
                  now_ms: int, statement: str | None = None, ttl_ms: int | None = None,
                  resources: Sequence[str] = ()) -> AuthPayload:
    """The authPayload the SDK's `authenticate()` sends: type caip122, version 1, iat now, the
    host's resources then a recap for `methods` (last)."""
    return AuthPayload(
        chains=list(chains), statement=statement or "", aud=aud, domain=domain, nonce=nonce,
        iat=iso_from_ms(now_ms), exp=None if ttl_ms is None else iso_from_ms(now_ms + ttl_ms),
        resources=[*resources, request_recap("eip155", methods)],
    )


def request_params(payload: AuthPayload, participant: Participant, expiry: int) -> dict[str, object]:
    """wc_sessionAuthenticate params: authPayload, requester, expiryTimestamp."""
    return {
        "authPayload": payload.model_dump(by_alias=True, exclude_none=True),
        "requester": participant.model_dump(by_alias=True, exclude_none=True),
        "expiryTimestamp": expiry,
    }


# ---------- the answer ------------------------------------------------------------------------------

def parse_result(result: object) -> AuthenticateResult:
    try:
        return AuthenticateResult.model_validate(result)
    except ValidationError as error:
        raise AuthError(f"malformed authenticate result ({error.error_count()} error(s))") from None


def did_parts(iss: str) -> tuple[str, str, str]:
    """(namespace, chain reference, address) of a `did:pkh:eip155:<chain>:<address>` issuer."""
    parts = iss.split(":")
    if len(parts) != 5 or parts[0] != "did" or parts[1] != "pkh" or parts[2] != "eip155" \
            or not parts[3].isdigit():
        raise AuthError(f"issuer is not an eip155 did:pkh ({iss[:80]!r})")
    return parts[2], parts[3], parts[4]


def cacao_message(payload: CacaoPayload) -> SiwxMessage:
    """The EIP-4361 message a CACAO signed, as the SDK's `formatMessage` writes it, built with
    the engine's one message builder (which also validates every field)."""
    _, chain, address = did_parts(payload.iss)
    aud = payload.aud or payload.uri
    if not aud:
        raise AuthError("the cacao has neither aud nor uri")
    statement = payload.statement or None
    try:
        recap = recap_of(payload.resources)
        if recap is not None:
            statement = recap_statement(statement, recap)
        return SiwxMessage(
            domain=payload.domain, account_address=address, uri=aud, chain_id=int(chain), nonce=payload.nonce,
            issued_at=payload.iat, statement=statement, version=payload.version, expiration_time=payload.exp,
            not_before=payload.nbf, request_id=payload.request_id,
            resources=None if payload.resources is None else tuple(payload.resources),
        )
    except SiwxMessageError as error:
        raise AuthError(f"the cacao's message is not EIP-4361 ({error.detail})") from None


def session_namespaces(cacaos: Sequence[Cacao]) -> dict[str, SessionNamespace]:
    """`buildNamespacesFromAuth`: accounts from each issuer (on its chain and the recap's),
    methods from the recaps, the two EVM events."""
    methods: list[str] = []
    accounts: list[str] = []
    for cacao in cacaos:
        namespace, chain, address = did_parts(cacao.p.iss)
        chains = [f"{namespace}:{chain}"]
        recap = recap_of(cacao.p.resources)
        if recap is not None:
            methods += recap_methods(recap)
            chains += recap_chains(recap)
        accounts += [f"{c}:{address}" for c in chains]
    accounts = list(dict.fromkeys(accounts))
    methods = list(dict.fromkeys(methods))
    if not methods:
        return {}
    out: dict[str, SessionNamespace] = {}
    for account in accounts:
        namespace, chain, _ = account.split(":", 2)
        ns = out.get(namespace)
        chain_id = f"{namespace}:{chain}"
        if ns is None:
            out[namespace] = SessionNamespace(chains=[chain_id], accounts=[account], methods=methods,
                                              events=list(EVENTS))
        else:
            out[namespace] = ns.model_copy(update={"accounts": [*ns.accounts, account],
                                                   "chains": [*(ns.chains or []), chain_id]})
    return out


def signed_in(cacaos: Sequence[dict[str, object]], chain: str) -> dict[str, str] | None:
    """{message, signature} of the stored CACAO issued on `chain` (the account's active chain):
    what the engine's SIWX verification stores as the sign-in."""
    for raw in cacaos:
        try:
            cacao = Cacao.model_validate(raw)
            namespace, reference, _ = did_parts(cacao.p.iss)
            if f"{namespace}:{reference}" == chain:
                return {"message": cacao_message(cacao.p).to_text(), "signature": cacao.s.s}
        except (ValidationError, AuthError):
            continue
    return None
