"""Fixtures for the SIWX server tests: real eth-account keys, a SQLite store, a fake clock.

The EIP-1271 test against a real node uses the dev-chain plugin's `devchains` fixture; it is
registered here unless the top-level conftest already did (same trick as tests/devchain)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_account.signers.local import LocalAccount

from modalcore.runtime.clock import FakeClock
from modalcore.siwx.domain.message import SiwxMessage
from modalcore.core.services import AnyService
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore.siwx.backend.tokens import load_or_create_key
from modalcore.core.services import ServiceTable
from modalcore.services.domain.handles import SIWX_NONCE, SIWX_SESSIONS, SIWX_VERIFY


# Hardhat's public dev keys (accounts #0 and #1 of the test mnemonic).
KEY_0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
ADDRESS_0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
KEY_1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
ADDRESS_1 = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

DOMAIN = "app.example.com"
URI = "https://app.example.com/login"
CHAIN_ID = 31337
NOW_MS = 1_700_000_000_000
SESSION = "engine-session-1"



def sign(text: str, key: str = KEY_0) -> str:
    """personal_sign (EIP-191) of `text`, as 0x + 130 hex."""
    return "0x" + bytes(Account.sign_message(encode_defunct(text=text), key).signature).hex()


def make_message(nonce: str, **overrides: Any) -> SiwxMessage:
    """A message for DOMAIN/URI/CHAIN_ID by account #0, issued at NOW_MS, valid for an hour."""
    args: dict[str, Any] = {
        "domain": DOMAIN,
        "address": ADDRESS_0,
        "uri": URI,
        "chain_id": CHAIN_ID,
        "nonce": nonce,
        "now_ms": NOW_MS,
        "statement": "Sign in to the demo app",
        "ttl_ms": 3_600_000,
    }
    args.update(overrides)
    return SiwxMessage.create(**args)


@dataclass
class Siwx:
    """The services over one store, with a fake clock; helpers to run a sign-in."""

    store: SqliteSiwxStore
    signer: LocalAccount
    clock: FakeClock
    services: ServiceTable = field(default_factory=dict)

    async def nonce(self, session_key: str = SESSION) -> str:
        result = await self.services[SIWX_NONCE](session_key=session_key)
        return str(result["nonce"])

    async def verify(
        self, text: str, signature: str, *, session_key: str = SESSION, **expected: Any
    ) -> dict[str, Any]:
        args: dict[str, Any] = {
            "domain": DOMAIN, "uri": URI, "chain_id": CHAIN_ID, "address": ADDRESS_0,
        }
        args.update(expected)
        result: dict[str, Any] = await self.services[SIWX_VERIFY](
            message=text, signature=signature, session_key=session_key, **args
        )
        return result

    async def sessions(self, address: str = ADDRESS_0, **filters: Any) -> list[dict[str, Any]]:
        result = await self.services[SIWX_SESSIONS](address=address, **filters)
        return list(result["sessions"])

    async def sign_in(self, key: str = KEY_0, **overrides: Any) -> dict[str, Any]:
        """Nonce, message (with `overrides`), signature by `key`, verify expecting the same
        domain/uri/chain/address the message was made with."""
        message = make_message(await self.nonce(), **overrides)
        text = message.to_text()
        expected = {k: overrides[k] for k in ("domain", "uri", "chain_id", "address") if k in overrides}
        return await self.verify(text, sign(text, key), **expected)


@pytest.fixture
def store() -> Iterator[SqliteSiwxStore]:
    db = SqliteSiwxStore(":memory:")
    yield db
    db.close()


@pytest.fixture
def signer(tmp_path: Path) -> LocalAccount:
    return load_or_create_key(tmp_path / "engine-key.hex")


@pytest.fixture
async def siwx(store: SqliteSiwxStore, signer: LocalAccount) -> AsyncIterator[Siwx]:
    clock = FakeClock(NOW_MS)
    async with httpx.AsyncClient() as http:
        yield Siwx(store, signer, clock, siwx_services(store, http, signer, clock=clock.now_ms))
