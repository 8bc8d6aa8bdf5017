"""Sign-In with Solana: a CAIP-122 message signed with a real Ed25519 key (the dev keypair the
Solana Dev Wallet uses), verified by the engine's SIWS service with SIWX's nonce and session
rules; a tampered message, another signer, a reused nonce are refused and nothing is stored."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from eth_account import Account
from solders.keypair import Keypair

from modalcore.chains.catalog import SOLANA_LOCAL, SOLANA_MAINNET
from modalcore.siwx.domain.grammar import SiwxParseError
from modalcore.runtime.clock import FakeClock
from modalcore.core.services import AnyService as Service
from modalcore.core.services import ServiceContext
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.domain.solana import SiwsMessage
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore_dev.solana_devchain.accounts import dev_keypair
from modalcore.services.domain.handles import SIWS_SESSIONS, SIWS_VERIFY, SIWX_NONCE
from modalcore.core.services import ServiceTable

DOMAIN = "localhost:8000"
URI = "http://localhost:8000"
NOW_MS = 1_700_000_000_000
SESSION = "engine-session-1"
WALLET = dev_keypair(0)


def Ctx() -> ServiceContext:
    return ServiceContext(session_id=SESSION, project_id="demo", clock=FakeClock(NOW_MS))


@pytest.fixture
def services() -> ServiceTable:
    return siwx_services(SqliteSiwxStore(":memory:"), None, Account.create())


async def message_for(services: ServiceTable, keypair: Keypair = WALLET, chain: str = SOLANA_LOCAL) -> str:
    nonce = (await services[SIWX_NONCE](Ctx(), session_key=SESSION))["nonce"]
    return SiwsMessage.create(domain=DOMAIN, address=str(keypair.pubkey()), uri=URI, chain_id=chain,
                              nonce=nonce, now_ms=NOW_MS, statement="Sign in to the demo").to_text()


def sign(text: str, keypair: Keypair = WALLET) -> str:
    return base64.b64encode(bytes(keypair.sign_message(text.encode()))).decode()


async def verify(services: ServiceTable, text: str, signature: str, **over: Any) -> dict[str, Any]:
    args = {"message": text, "signature": signature, "session_key": SESSION, "domain": DOMAIN, "uri": URI,
            "chain": SOLANA_LOCAL, "address": str(WALLET.pubkey()), **over}
    result: dict[str, Any] = await services[SIWS_VERIFY](Ctx(), **args)
    return result


async def stored(services: ServiceTable) -> list[dict[str, Any]]:
    found = await services[SIWS_SESSIONS](Ctx(), address=str(WALLET.pubkey()), domain=DOMAIN, chain=SOLANA_LOCAL)
    return list(found["sessions"])


def test_the_message_has_the_caip122_layout_and_parses_back() -> None:
    text = SiwsMessage.create(domain=DOMAIN, address=str(WALLET.pubkey()), uri=URI, chain_id=SOLANA_MAINNET,
                              nonce="abcdef123456", now_ms=NOW_MS, statement="Hi", ttl_ms=60_000).to_text()
    assert text.split("\n") == [
        f"{DOMAIN} wants you to sign in with your Solana account:", str(WALLET.pubkey()), "", "Hi", "",
        f"URI: {URI}", "Version: 1", "Chain ID: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "Nonce: abcdef123456",
        "Issued At: 2023-11-14T22:13:20.000Z", "Expiration Time: 2023-11-14T22:14:20.000Z"]
    assert SiwsMessage.parse(text).to_text() == text
    with pytest.raises(SiwxParseError):
        SiwsMessage.parse(text.replace("Version: 1", "Version: 2"))


async def test_signed_by_the_dev_wallet_key_is_verified_and_stored(services: ServiceTable) -> None:
    text = await message_for(services)
    result = await verify(services, text, sign(text))
    assert result["ok"] is True and result["token"]
    [session] = await stored(services)
    assert session["data"]["accountAddress"] == str(WALLET.pubkey())
    assert session["data"]["chainId"] == SOLANA_LOCAL
    assert session["cacao"]["p"]["iss"] == f"did:pkh:{SOLANA_LOCAL}:{WALLET.pubkey()}"


async def test_a_tampered_message_is_refused_and_nothing_stored(services: ServiceTable) -> None:
    text = await message_for(services)
    signature = sign(text)
    tampered = text.replace("Sign in to the demo", "Sign in to the deme")
    result = await verify(services, tampered, signature)
    assert result == {"ok": False, "reason": "signature_mismatch",
                      "error": "The signature was made by another account or the message was changed after signing"}
    assert await stored(services) == []


async def test_another_signer_is_refused_and_nothing_stored(services: ServiceTable) -> None:
    text = await message_for(services)
    result = await verify(services, text, sign(text, dev_keypair(1)))
    assert result["ok"] is False and result["reason"] == "signature_mismatch"
    assert await stored(services) == []


async def test_a_forged_signature_is_refused(services: ServiceTable) -> None:
    text = await message_for(services)
    for forged in (base64.b64encode(bytes(64)).decode(), "not base64!", base64.b64encode(b"short").decode()):
        result = await verify(services, text, forged)
        assert result["ok"] is False
    assert await stored(services) == []


async def test_a_nonce_signs_in_once(services: ServiceTable) -> None:
    text = await message_for(services)
    assert (await verify(services, text, sign(text)))["ok"] is True
    again = await verify(services, text, sign(text))
    assert again["ok"] is False and again["reason"] == "nonce_used"
    assert len(await stored(services)) == 1


async def test_another_session_nonce_domain_or_chain_is_refused(services: ServiceTable) -> None:
    text = await message_for(services)
    assert (await verify(services, text, sign(text), session_key="other"))["ok"] is False
    assert (await verify(services, text, sign(text), domain="evil.example"))["reason"] == "wrong_domain"
    assert (await verify(services, text, sign(text), chain=SOLANA_MAINNET))["reason"] == "wrong_chain_id"
    assert await stored(services) == []


@pytest.mark.parametrize(("old", "new", "field"), [
    ("Version: 1", "Version: 2", "version"),
    ("Nonce: abcdef123456", "Nonce: abc", "nonce"),
    ("Chain ID: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "Chain ID: 0OIl", "chainId"),
    ("URI: http://localhost:8000", "URI: not a uri", "uri"),
    ("\nHi\n", "\nH\"i\"\n", "statement"),
    ("Issued At: 2023-11-14T22:13:20.000Z", "Issued At: 2023-11-14", "issuedAt"),
    (str(WALLET.pubkey()), "0x" + "ab" * 20, "accountAddress"),
])
def test_the_message_follows_the_sign_in_rules_siwe_has_and_names_the_field(old: str, new: str, field: str) -> None:
    text = SiwsMessage.create(domain=DOMAIN, address=str(WALLET.pubkey()), uri=URI, chain_id=SOLANA_MAINNET,
                              nonce="abcdef123456", now_ms=NOW_MS, statement="Hi").to_text()
    assert old in text
    with pytest.raises(SiwxParseError) as caught:
        SiwsMessage.parse(text.replace(old, new, 1))
    assert caught.value.field == field
    for malformed in (text + "\n", text + "\nHello: there", text.replace("\n", "\r\n")):
        with pytest.raises(SiwxParseError):
            SiwsMessage.parse(malformed)
