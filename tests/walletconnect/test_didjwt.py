"""The relay-auth did:key JWT (relay-client-auth, crypto-authentication): the spec's test
vector reproduced exactly, and signatures checked by an independent Ed25519 implementation
(pycryptodome), not the one that signed them."""

from __future__ import annotations

import base64
import json
import time

import base58
import pytest
from Crypto.PublicKey import ECC
from Crypto.Signature import eddsa

from modalcore.walletconnect.backend.didjwt import ClientIdentity, JwtError, decode_did_key, sign_jwt, verify_jwt

SPEC_SEED = "58e0254c211b858ef7896b00e3f36beeb13d568d47c6031c4218b87718061295"
SPEC_PUBLIC = "884ab67f787b69e534bfdba8d5beb4e719700e90ac06317ed177d49e5a33be5a"
SPEC_JWT = (
    "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJkaWQ6a2V5Ono2TWtvZEhad25lVlJTaHRhTGY4SktZa3hwREdwMXZHWm5wR21k"
    "QnBYOE0yZXh4SCIsInN1YiI6ImM0NzlmZTVkYzQ2NGU3NzFlNzhiMTkzZDIzOWE2NWI1OGQyNzhjYWQxYzM0YmZiMGI1NzE2ZTViYjUxNDky"
    "OGUiLCJhdWQiOiJ3c3M6Ly9yZWxheS53YWxsZXRjb25uZWN0LmNvbSIsImlhdCI6MTY1NjkxMDA5NywiZXhwIjoxNjU2OTk2NDk3fQ."
    "bAKl1swvwqqV_FgwvD4Bx3Yp987B9gTpZctyBviA-EkAuWc8iI8SyokOjkv9GJESgid4U8Tf2foCgrQp2qrxBA"
)


def _unb64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def independent_verify(token: str) -> bool:
    """Ed25519 verification with pycryptodome, the key taken from the did:key by hand."""
    header, payload, signature = token.split(".")
    did = json.loads(_unb64(payload))["iss"]
    raw = base58.b58decode(did.removeprefix("did:key:z"))
    assert raw[:2] == b"\xed\x01"
    key = ECC.import_key(
        b"\x30\x2a\x30\x05\x06\x03\x2b\x65\x70\x03\x21\x00" + raw[2:])
    try:
        eddsa.new(key, "rfc8032").verify(f"{header}.{payload}".encode(), _unb64(signature))
        return True
    except ValueError:
        return False


def test_the_spec_vector_is_reproduced_exactly() -> None:
    identity = ClientIdentity(SPEC_SEED)
    assert identity.public_key.hex() == SPEC_PUBLIC
    token = sign_jwt(identity, sub="c479fe5dc464e771e78b193d239a65b58d278cad1c34bfb0b5716e5bb514928e",
                     aud="wss://relay.walletconnect.com", iat=1656910097, ttl=86400)
    assert token == SPEC_JWT
    assert identity.client_id == "did:key:z6MkodHZwneVRShtaLf8JKYkxpDGp1vGZnpGmdBpX8M2exxH"


def test_the_jwt_verifies_with_an_independent_ed25519_implementation() -> None:
    assert independent_verify(SPEC_JWT)
    fresh = sign_jwt(ClientIdentity.generate(), sub="ab" * 32, aud="ws://127.0.0.1:1", iat=int(time.time()))
    assert independent_verify(fresh)
    header, payload, signature = fresh.split(".")
    assert not independent_verify(f"{header}.{payload}.{SPEC_JWT.split('.')[2]}")


def test_verify_accepts_good_tokens_and_checks_expiry_and_audience() -> None:
    verified = verify_jwt(SPEC_JWT, now=1656910100, audience="wss://relay.walletconnect.com")
    assert verified.client_id == ClientIdentity(SPEC_SEED).client_id
    with pytest.raises(JwtError, match="expired"):
        verify_jwt(SPEC_JWT, now=1656996498)
    with pytest.raises(JwtError, match="audience"):
        verify_jwt(SPEC_JWT, audience="ws://elsewhere")


@pytest.mark.parametrize("token", ["", "a.b", "e30.e30.AA", SPEC_JWT[:-4] + "AAAA",
                                   SPEC_JWT.replace("eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9", "eyJhbGciOiJub25lIn0")])
def test_bad_tokens_raise_a_typed_error(token: str) -> None:
    with pytest.raises(JwtError):
        verify_jwt(token)


def test_did_key_decoding_refuses_other_key_types() -> None:
    assert decode_did_key(ClientIdentity(SPEC_SEED).client_id).hex() == SPEC_PUBLIC
    with pytest.raises(JwtError):
        decode_did_key("did:key:z" + base58.b58encode(b"\xe7\x01" + bytes(33)).decode())
