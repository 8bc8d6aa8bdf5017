"""ID token verification (OpenID Connect Core §3.1.3.7) with `cryptography` only.

Signature first (RS256 or ES256 with a key from the provider's JWKS, picked by `kid`; `none`
and every other algorithm refused), then iss, aud/azp, exp, iat and nonce. Time is passed in.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

ALGORITHMS = ("RS256", "ES256")
IAT_SKEW_S = 60


class IdTokenError(ValueError):
    """The ID token is malformed, badly signed, or not for this sign-in."""


def b64url(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise IdTokenError("malformed base64url") from None


def _int(text: str) -> int:
    return int.from_bytes(b64url(text), "big")


def _json(part: str) -> dict[str, object]:
    try:
        value = json.loads(b64url(part))
    except ValueError:
        raise IdTokenError("malformed JSON in the token") from None
    if not isinstance(value, dict):
        raise IdTokenError("malformed JSON in the token")
    return value


def _verify_signature(alg: str, jwk: dict[str, Any], signed: bytes, signature: bytes) -> None:
    try:
        if alg == "RS256" and jwk.get("kty") == "RSA":
            rsa.RSAPublicNumbers(_int(jwk["e"]), _int(jwk["n"])).public_key().verify(
                signature, signed, padding.PKCS1v15(), hashes.SHA256())
            return
        if alg == "ES256" and jwk.get("kty") == "EC" and jwk.get("crv") == "P-256":
            if len(signature) != 64:
                raise IdTokenError("bad ES256 signature length")
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"),
                                       int.from_bytes(signature[32:], "big"))
            point = ec.EllipticCurvePublicNumbers(_int(jwk["x"]), _int(jwk["y"]), ec.SECP256R1())
            point.public_key().verify(der, signed, ec.ECDSA(hashes.SHA256()))
            return
    except InvalidSignature:
        raise IdTokenError("the ID token signature does not verify") from None
    except (KeyError, ValueError, TypeError) as error:
        if isinstance(error, IdTokenError):
            raise
        raise IdTokenError("the provider's key is malformed") from None
    raise IdTokenError(f"the key does not fit {alg}")


def verify_id_token(token: str, jwks: dict[str, Any], issuer: str, client_id: str, nonce: str,
                    now_s: int) -> dict[str, Any]:
    parts = token.split(".") if isinstance(token, str) else []
    if len(parts) != 3:
        raise IdTokenError("an ID token has three parts")
    header, claims = _json(parts[0]), _json(parts[1])
    alg = header.get("alg")
    if alg not in ALGORITHMS:
        raise IdTokenError(f"ID token algorithm {alg!r} is not accepted")
    keys = [k for k in jwks.get("keys", []) if isinstance(k, dict)
            and k.get("use", "sig") == "sig" and k.get("alg", alg) == alg]
    kid = header.get("kid")
    if kid is not None:
        keys = [k for k in keys if k.get("kid") == kid]
    if len(keys) != 1:
        raise IdTokenError("no single provider key matches the ID token")
    _verify_signature(alg, keys[0], f"{parts[0]}.{parts[1]}".encode(), b64url(parts[2]))
    if claims.get("iss") != issuer:
        raise IdTokenError("the ID token is from another issuer")
    aud = claims.get("aud")
    audiences = aud if isinstance(aud, list) else [aud]
    if client_id not in audiences:
        raise IdTokenError("the ID token is for another client")
    if len(audiences) > 1 and claims.get("azp") != client_id:
        raise IdTokenError("the ID token's authorized party is another client")
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, int) or not isinstance(iat, int):
        raise IdTokenError("the ID token lacks exp or iat")
    if now_s >= exp:
        raise IdTokenError("the ID token has expired")
    if iat > now_s + IAT_SKEW_S:
        raise IdTokenError("the ID token is issued in the future")
    if claims.get("nonce") != nonce:
        raise IdTokenError("the ID token's nonce does not match this sign-in")
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise IdTokenError("the ID token has no subject")
    return claims
