"""Sign-in through `siwx.verify` with real signatures: the valid path and every refusal."""

from __future__ import annotations

from typing import Any

import pytest

from modalcore.runtime.clock import FakeClock
from modalcore.core.services import ServiceContext
from modalcore.siwx.domain.message import SiwxMessage
from modalcore.siwx.backend.tokens import verify_token
from modalcore.siwx.backend.verify import REASONS, SiwxVerifyError, personal_message_hash, recover_eoa, verify
from modalcore.services.domain.handles import SIWX_NONCE, SIWX_REVOKE, SIWX_SESSIONS, SIWX_VERIFY

from .conftest import (
    ADDRESS_0,
    ADDRESS_1,
    CHAIN_ID,
    DOMAIN,
    KEY_0,
    KEY_1,
    NOW_MS,
    SESSION,
    URI,
    Siwx,
    make_message,
    sign,
)

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


async def test_valid_sign_in_stores_a_session_and_returns_a_token(siwx: Siwx) -> None:
    nonce = await siwx.nonce()
    text = make_message(nonce).to_text()
    signature = sign(text)
    result = await siwx.verify(text, signature)

    assert result["ok"] is True
    session = result["session"]
    assert session["message"] == text and session["signature"] == signature
    assert session["data"]["accountAddress"] == ADDRESS_0
    assert session["data"]["chainId"] == f"eip155:{CHAIN_ID}"
    assert session["data"]["nonce"] == nonce
    assert session["cacao"]["h"] == {"t": "caip122"}
    assert session["cacao"]["p"]["iss"] == f"did:pkh:eip155:{CHAIN_ID}:{ADDRESS_0}"
    assert session["cacao"]["p"]["aud"] == URI
    assert session["cacao"]["s"] == {"t": "eip191", "s": signature}
    assert await siwx.sessions() == [session]
    assert await siwx.sessions(ADDRESS_0.lower(), domain=DOMAIN, chain_id=f"eip155:{CHAIN_ID}") == [session]
    assert await siwx.sessions(f"eip155:{CHAIN_ID}:{ADDRESS_0}") == [session]

    claims = verify_token(result["token"], siwx.signer.address, NOW_MS / 1000)
    assert claims == {
        "address": ADDRESS_0,
        "chainId": CHAIN_ID,
        "domain": DOMAIN,
        "iat": NOW_MS // 1000,
        "exp": (NOW_MS + 3_600_000) // 1000,  # the message's expiration time
        "sid": session["id"],
    }


async def test_session_without_expiration_time_lasts_the_default_ttl(siwx: Siwx) -> None:
    result = await siwx.sign_in(ttl_ms=None)
    assert result["ok"]
    claims = verify_token(result["token"], siwx.signer.address, NOW_MS / 1000)
    assert claims["exp"] == (NOW_MS + 7 * 24 * 3_600_000) // 1000


async def test_session_expires_with_its_message(siwx: Siwx) -> None:
    assert (await siwx.sign_in())["ok"]
    siwx.clock.advance_to(NOW_MS + 3_600_000)
    assert await siwx.sessions() == []


async def test_no_expected_address_accepts_the_message_signer(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), address=ADDRESS_1).to_text()
    result = await siwx.verify(text, sign(text, KEY_1), address=None)
    assert result["ok"] and result["session"]["data"]["accountAddress"] == ADDRESS_1


async def test_v_as_0_or_1_is_accepted(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce()).to_text()
    signature = sign(text)
    v = int(signature[-2:], 16) - 27
    assert (await siwx.verify(text, signature[:-2] + f"{v:02x}"))["ok"]


async def _refused(siwx: Siwx, result: dict[str, Any], reason: str, existing: int = 0) -> None:
    """Refused with `reason`, and no session was stored (`existing` were there before)."""
    assert result["ok"] is False, result
    assert result["reason"] == reason, result
    assert isinstance(result["error"], str) and result["error"]
    assert "token" not in result and "session" not in result
    assert len(await siwx.sessions()) == existing
    assert await siwx.sessions(ADDRESS_1) == []


async def test_wrong_domain(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), domain="evil.example.com").to_text()
    await _refused(siwx, await siwx.verify(text, sign(text)), "wrong_domain")


async def test_wrong_uri(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), uri="https://evil.example.com/login").to_text()
    await _refused(siwx, await siwx.verify(text, sign(text)), "wrong_uri")


async def test_wrong_chain_id(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), chain_id=1).to_text()
    await _refused(siwx, await siwx.verify(text, sign(text)), "wrong_chain_id")


async def test_wrong_address(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), address=ADDRESS_1).to_text()
    await _refused(siwx, await siwx.verify(text, sign(text, KEY_1)), "wrong_address")


async def test_expired(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), ttl_ms=60_000).to_text()
    siwx.clock.advance_to(NOW_MS + 60_000)
    await _refused(siwx, await siwx.verify(text, sign(text)), "expired")


async def test_not_yet_valid(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), not_before_ms=NOW_MS + 60_000).to_text()
    await _refused(siwx, await siwx.verify(text, sign(text)), "not_yet_valid")
    siwx.clock.advance_to(NOW_MS + 60_000)  # the same message is fine once its time has come
    assert (await siwx.verify(text, sign(text)))["ok"]


async def test_issued_in_the_future(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), now_ms=NOW_MS + 3_600_000).to_text()
    await _refused(siwx, await siwx.verify(text, sign(text)), "not_yet_valid")


async def test_nonce_reused(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce()).to_text()
    assert (await siwx.verify(text, sign(text)))["ok"]
    await _refused(siwx, await siwx.verify(text, sign(text)), "nonce_used", existing=1)


async def test_nonce_from_another_session(siwx: Siwx) -> None:
    other = await siwx.nonce("engine-session-2")
    text = make_message(other).to_text()
    await _refused(siwx, await siwx.verify(text, sign(text)), "nonce_other_session")
    # ... and it was not burnt: its own session can still use it
    assert (await siwx.verify(text, sign(text), session_key="engine-session-2"))["ok"]


async def test_nonce_unknown(siwx: Siwx) -> None:
    text = make_message("madeUpNonce123").to_text()
    await _refused(siwx, await siwx.verify(text, sign(text)), "nonce_unknown")


async def test_nonce_expires_after_ten_minutes(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce(), ttl_ms=None).to_text()
    siwx.clock.advance_to(NOW_MS + 10 * 60_000 + 1)
    await _refused(siwx, await siwx.verify(text, sign(text)), "nonce_expired")


async def test_message_altered_after_signing(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce()).to_text()
    signature = sign(text)
    altered = text.replace("Sign in to the demo app", "Sign in to the demo app and pay")
    await _refused(siwx, await siwx.verify(altered, signature), "signature_mismatch")
    # the failed attempt did not burn the nonce
    assert (await siwx.verify(text, signature))["ok"]


async def test_signature_by_another_account(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce()).to_text()
    await _refused(siwx, await siwx.verify(text, sign(text, KEY_1)), "signature_mismatch")


@pytest.mark.parametrize(
    "mangle",
    [
        lambda sig: sig[2:],  # no 0x
        lambda sig: sig[:-2],  # 64 bytes
        lambda sig: sig + "00",  # 66 bytes
        lambda sig: sig[:-1],  # odd length
        lambda sig: sig[:-4] + "zz1b",  # not hex
        lambda sig: sig[:-2] + "1d",  # v = 29
        lambda sig: sig[:-2] + "25",  # v = 37 (EIP-155 style, not for messages)
        lambda sig: "0x",
        lambda sig: "",
        lambda sig: "0x" + "00" * 65,  # r = s = 0
    ],
)
async def test_malformed_signature(siwx: Siwx, mangle: Any) -> None:
    text = make_message(await siwx.nonce()).to_text()
    await _refused(siwx, await siwx.verify(text, mangle(sign(text))), "malformed_signature")


async def test_high_s_twin_is_malformed(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce()).to_text()
    raw = bytes.fromhex(sign(text)[2:])
    s = int.from_bytes(raw[32:64], "big")
    twin = raw[:32] + (SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - raw[64]])
    await _refused(siwx, await siwx.verify(text, "0x" + twin.hex()), "malformed_signature")


async def test_malformed_message(siwx: Siwx) -> None:
    text = make_message(await siwx.nonce()).to_text() + "\n"
    await _refused(siwx, await siwx.verify(text, sign(text)), "malformed_message")
    await _refused(siwx, await siwx.verify("hello", sign("hello")), "malformed_message")


async def test_verify_raises_a_typed_error(siwx: Siwx) -> None:
    nonce = await siwx.nonce()
    text = make_message(nonce, domain="evil.example.com").to_text()
    with pytest.raises(SiwxVerifyError) as caught:
        await verify(
            text, sign(text), expected_domain=DOMAIN, expected_uri=URI, expected_chain_id=CHAIN_ID,
            expected_address=ADDRESS_0, nonce_store=siwx.store, session_key=SESSION, now_ms=NOW_MS,
            rpc_url=None, http=None,
        )
    assert caught.value.reason == "wrong_domain"
    assert "evil.example.com" in caught.value.detail
    assert set(REASONS) >= {
        "wrong_domain", "wrong_uri", "expired", "not_yet_valid", "nonce_used", "nonce_unknown",
        "nonce_other_session", "wrong_chain_id", "signature_mismatch", "malformed_signature",
    }
    good = make_message(nonce).to_text()
    parsed = await verify(
        good, sign(good), expected_domain=DOMAIN, expected_uri=URI, expected_chain_id=CHAIN_ID,
        expected_address=ADDRESS_0.lower(), nonce_store=siwx.store, session_key=SESSION,
        now_ms=NOW_MS, rpc_url=None, http=None,
    )
    assert parsed == SiwxMessage.parse(good)


def test_recover_and_hash_match_eth_account() -> None:
    from eth_account import Account
    from eth_account.messages import encode_defunct

    signed = Account.sign_message(encode_defunct(text="héllo"), KEY_0)
    assert personal_message_hash("héllo") == bytes(signed.message_hash)
    assert recover_eoa("héllo", bytes(signed.signature)) == ADDRESS_0
    assert recover_eoa("other", bytes(signed.signature)) != ADDRESS_0


async def test_services_accept_a_runtime_context(siwx: Siwx) -> None:
    def ctx() -> ServiceContext:
        return ServiceContext("s", "p", FakeClock(start_ms=NOW_MS + 5))

    nonce = (await siwx.services[SIWX_NONCE](ctx(), session_key=SESSION))["nonce"]
    text = make_message(nonce).to_text()
    result = await siwx.services[SIWX_VERIFY](
        ctx(), message=text, signature=sign(text), session_key=SESSION, domain=DOMAIN, uri=URI,
        chain_id=CHAIN_ID, address=ADDRESS_0, rpc_url=None,
    )
    assert result["ok"]
    assert verify_token(result["token"], siwx.signer.address, NOW_MS / 1000)["iat"] == (NOW_MS + 5) // 1000
    revoked = await siwx.services[SIWX_REVOKE](ctx(), address=ADDRESS_0, domain=DOMAIN)
    assert revoked == {"revoked": 1}
    assert await siwx.services[SIWX_SESSIONS](ctx(), address=ADDRESS_0) == {"sessions": []}
