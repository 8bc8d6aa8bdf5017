"""Session tokens: issued by the engine key, verified offline; tampering is caught."""

from __future__ import annotations

import base64
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount

from modalcore.siwx.backend.tokens import TokenError, issue_token, load_or_create_key, verify_token

from .conftest import ADDRESS_0, DOMAIN, KEY_1

IAT = 1_700_000_000
EXP = IAT + 3600


def _token(signer: LocalAccount, **overrides: Any) -> str:
    claims: dict[str, Any] = {
        "address": ADDRESS_0, "chain_id": 31337, "domain": DOMAIN, "sid": "sid-1", "iat": IAT, "exp": EXP,
    }
    claims.update(overrides)
    return issue_token(signer, **claims)


def test_token_round_trip(signer: LocalAccount) -> None:
    token = _token(signer)
    payload_b64, signature = token.split(".")
    assert signature.startswith("0x") and len(signature) == 132
    assert "=" not in payload_b64
    assert verify_token(token, signer.address, IAT) == {
        "address": ADDRESS_0, "chainId": 31337, "domain": DOMAIN, "iat": IAT, "exp": EXP, "sid": "sid-1",
    }
    assert verify_token(token, signer.address.lower(), EXP - 1)["sid"] == "sid-1"


def test_expired_token(signer: LocalAccount) -> None:
    with pytest.raises(TokenError, match="expired"):
        verify_token(_token(signer), signer.address, EXP)


def test_token_issued_in_the_future(signer: LocalAccount) -> None:
    with pytest.raises(TokenError, match="future"):
        verify_token(_token(signer), signer.address, IAT - 3600)


def test_tampered_payload_fails(signer: LocalAccount) -> None:
    payload_b64, signature = _token(signer).split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload_b64 + "=" * (-len(payload_b64) % 4)))
    claims["address"] = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
    forged = base64.urlsafe_b64encode(
        json.dumps(claims, sort_keys=True, separators=(",", ":")).encode()
    ).rstrip(b"=").decode()
    with pytest.raises(TokenError, match="not signed by the engine"):
        verify_token(f"{forged}.{signature}", signer.address, IAT)


def test_tampered_signature_fails(signer: LocalAccount) -> None:
    token = _token(signer)
    flipped = token[:-3] + ("0" if token[-3] != "0" else "1") + token[-2:]
    with pytest.raises(TokenError):
        verify_token(flipped, signer.address, IAT)


def test_token_signed_by_another_key_fails(signer: LocalAccount) -> None:
    other = Account.from_key(KEY_1)
    with pytest.raises(TokenError, match="not signed by the engine"):
        verify_token(_token(other), signer.address, IAT)


@pytest.mark.parametrize(
    "token",
    ["", "abc", "abc.def", "a.b.c", "!!!.0x" + "00" * 65, "e30.0x" + "00" * 65],  # e30 = "{}"
)
def test_malformed_tokens(signer: LocalAccount, token: str) -> None:
    with pytest.raises(TokenError):
        verify_token(token, signer.address, IAT)


def test_host_backend_example_with_plain_eth_account(signer: LocalAccount) -> None:
    """The 10-line check from the tokens module docstring, as a host would write it."""
    token = _token(signer, iat=int(time.time()), exp=int(time.time()) + 60)

    def check_siwx_token(token: str, engine_address: str, my_domain: str) -> dict[str, Any]:
        payload_b64, signature = token.split(".")
        signer_ = Account.recover_message(encode_defunct(text=payload_b64), signature=signature)
        claims: dict[str, Any] = json.loads(
            base64.urlsafe_b64decode(payload_b64 + "=" * (-len(payload_b64) % 4))
        )
        if signer_ != engine_address or claims["domain"] != my_domain or claims["exp"] <= time.time():
            raise PermissionError("invalid SIWX token")
        return claims

    assert check_siwx_token(token, signer.address, DOMAIN)["address"] == ADDRESS_0
    with pytest.raises(PermissionError):
        check_siwx_token(token, signer.address, "other.example.com")


def test_key_file_is_created_once_and_private(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "engine.key"
    first = load_or_create_key(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again = load_or_create_key(path)
    assert again.address == first.address and again.key == first.key


def test_key_file_with_garbage_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "engine.key"
    path.write_text("not a key\n")
    with pytest.raises(ValueError):
        load_or_create_key(path)
