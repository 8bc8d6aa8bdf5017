"""ID token checks (issue 15 §2) on tokens signed here with real RS256 and ES256 keys."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from modalcore.embedded.idtoken import IdTokenError, verify_id_token

ISS, AUD, NONCE, NOW = "https://issuer.test", "client-1", "nonce-1", 1_700_000_000
RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def num(value: int, size: int | None = None) -> str:
    return b64(value.to_bytes(size or (value.bit_length() + 7) // 8, "big"))


def jwks() -> dict[str, Any]:
    r = RSA_KEY.public_key().public_numbers()
    e = EC_KEY.public_key().public_numbers()
    return {"keys": [
        {"kty": "RSA", "kid": "r", "alg": "RS256", "use": "sig", "n": num(r.n), "e": num(r.e)},
        {"kty": "EC", "kid": "e", "crv": "P-256", "x": num(e.x, 32), "y": num(e.y, 32)},
    ]}


def claims(**over: Any) -> dict[str, Any]:
    return {"iss": ISS, "aud": AUD, "sub": "user-1", "nonce": NONCE, "iat": NOW - 5,
            "exp": NOW + 600, **over}


def token(body: dict[str, Any], alg: str = "RS256", kid: str = "r") -> str:
    head = b64(json.dumps({"alg": alg, "kid": kid}).encode())
    signed = f"{head}.{b64(json.dumps(body).encode())}"
    if alg == "RS256":
        sig = RSA_KEY.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())
    elif alg == "ES256":
        r, s = decode_dss_signature(EC_KEY.sign(signed.encode(), ec.ECDSA(hashes.SHA256())))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        sig = b""
    return f"{signed}.{b64(sig)}"


def check(tok: str, now: int = NOW) -> dict[str, Any]:
    return verify_id_token(tok, jwks(), ISS, AUD, NONCE, now)


def test_rs256_and_es256_tokens_verify() -> None:
    assert check(token(claims()))["sub"] == "user-1"
    assert check(token(claims(), "ES256", "e"))["sub"] == "user-1"


def test_alg_none_and_hs256_are_refused() -> None:
    for alg in ("none", "HS256"):
        with pytest.raises(IdTokenError, match="not accepted"):
            check(token(claims(), alg))


def test_a_changed_payload_breaks_the_signature() -> None:
    head, _, sig = token(claims()).split(".")
    forged = f"{head}.{b64(json.dumps(claims(sub='admin')).encode())}.{sig}"
    with pytest.raises(IdTokenError, match="signature does not verify"):
        check(forged)


def test_key_of_another_kind_for_the_alg_is_refused() -> None:
    with pytest.raises(IdTokenError, match="does not fit"):
        check(token(claims(), "RS256", "e"))  # an EC key with no alg named
    with pytest.raises(IdTokenError, match="no single provider key"):
        check(token(claims(), "ES256", "r"))  # the RSA key is marked RS256


@pytest.mark.parametrize(("over", "reason"), [
    ({"iss": "https://evil.test"}, "another issuer"),
    ({"aud": "client-2"}, "another client"),
    ({"aud": [AUD, "client-2"]}, "authorized party"),
    ({"nonce": "replayed"}, "nonce"),
    ({"exp": NOW}, "expired"),
    ({"iat": NOW + 61}, "future"),
    ({"sub": ""}, "no subject"),
])
def test_claims_are_checked(over: dict[str, Any], reason: str) -> None:
    with pytest.raises(IdTokenError, match=reason):
        check(token(claims(**over)))


def test_several_audiences_with_our_azp_pass() -> None:
    assert check(token(claims(aud=[AUD, "client-2"], azp=AUD)))["sub"] == "user-1"


@pytest.mark.parametrize("bad", ["", "a.b", "a.b.c.d", "!!.??.**"])
def test_malformed_tokens_are_typed_errors(bad: str) -> None:
    with pytest.raises(IdTokenError):
        check(bad)
