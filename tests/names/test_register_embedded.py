"""Registering an account name as a real embedded-wallet user (behaviour.md §4 "Name registration", §5
registration needs the auth connector, §2 ApproveTransaction, §8 'Error registering name {name}'):
the visitor signs in by email (real SMTP, real code store, real key vault), the registration
message waits in the approval frame, approving has the engine sign with the key it holds, and the
engine's own name registry (SQLite) verifies that signature and stores the name for the embedded
address; Account shows the name. Rejecting in the frame stores nothing and returns to the
register view with behaviour.md §8's message."""

from __future__ import annotations

from typing import Any

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.core.cmds import Call
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.service import EmbeddedWallet
from modalcore.rules.embedded import AUTH_CONNECTOR_ID
from modalcore.rules.names import error_registering
from modalcore.services.backend.name_registry import NameRegistry
from modalcore.services.backend.names import name_services
from modalcore.slices.embedded import ApprovalDecided
from modalcore.slices.register_name import DEBOUNCE_MS

from tests.embedded.world import EmailWorld, smtp, wallet

__all__ = ["smtp", "wallet"]  # fixtures this module uses

EMAIL = "erin@example.com"


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[NameRegistry]:
    store = NameRegistry(str(tmp_path / "names.db"), ".reown.id")
    yield store
    store.close()


@pytest.fixture
def client() -> Iterator[httpx.AsyncClient]:
    http = httpx.AsyncClient()
    yield http
    asyncio.run(http.aclose())


class NamesWorld(EmailWorld):
    """An email visitor whose `name_*`/`register_name` calls run against the engine's registry,
    dated by the session's own (fake) clock."""

    def __init__(self, wallet: EmbeddedWallet, smtp: LocalSmtpServer, registry: NameRegistry,
                 http: httpx.AsyncClient) -> None:
        super().__init__(wallet, smtp, services={})
        self.services.update(name_services(http, registry, clock_ms=lambda: self.h.now))


def _registering(world: NamesWorld) -> str:
    address = world.sign_in(EMAIL)
    world.settle_all()
    assert world.h.model.accounts.get("eip155").connector_id == AUTH_CONNECTOR_ID
    world.h.host("open")
    world.h.press("account/register-name")
    assert world.h.view == "RegisterAccountName"
    assert world.h.find("register-name/gate") is None  # the embedded user passes behaviour.md §5's gate
    world.h.intent("register-name/input", "change", {"value": "satoshi"})
    world.h.advance(DEBOUNCE_MS)
    world.settle_all()
    world.h.expect(text="satoshi.reown.id is available")
    world.h.press("register-name/submit")
    world.settle_all()
    return address


def _signs(world: NamesWorld) -> list[Call[Any]]:
    return [c for c in world.h.cmds if isinstance(c, Call) and c.service.name == "embedded.sign"]


def test_an_embedded_user_approves_the_registration_and_the_registry_stores_the_name(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer, registry: NameRegistry,
        client: httpx.AsyncClient) -> None:
    world = NamesWorld(wallet, smtp, registry, client)
    address = _registering(world)
    # the registration message waits in the approval frame; nothing went to the page
    assert world.h.view == "ApproveTransaction"
    request = world.h.model.embedded.request
    assert request is not None and request.method == "personal_sign"
    assert world.h.find(f"approve/frame/{request.eid}") is not None
    assert world.h.effects() == []
    assert registry.names() == []
    message = bytes.fromhex(json.loads(request.params)[0].removeprefix("0x")).decode()
    assert "satoshi.reown.id" in message
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    settled = world.run_calls()  # embedded.sign: the engine-held key signs
    signature = next(s.result["result"] for s in settled if s.to.reply.__name__ == "EmbeddedSigned")
    assert Account.recover_message(encode_defunct(text=message), signature=signature) == address
    world.settle_all()  # register_name: the registry verifies and stores
    assert registry.address_of("satoshi.reown.id") == address
    assert registry.name_of(address) == "satoshi.reown.id"
    assert world.h.view == "RegisterAccountNameSuccess"
    assert world.h.node("register-success/name").p["text"] == "satoshi.reown.id"
    world.h.press("register-success/ok")
    assert world.h.view == "Account"
    assert world.h.node("account/address").p["text"] == "satoshi.reown.id"


def test_rejecting_in_the_approval_frame_stores_nothing_and_says_so_in_the_register_view(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer, registry: NameRegistry,
        client: httpx.AsyncClient) -> None:
    world = NamesWorld(wallet, smtp, registry, client)
    address = _registering(world)
    request = world.h.model.embedded.request
    assert request is not None and world.h.view == "ApproveTransaction"
    world.h.deliver(ApprovalDecided(request.eid, approve=False))
    assert _signs(world) == []  # the held key is never asked (run_calls would consume the call)
    world.settle_all()
    assert registry.names() == [] and registry.name_of(address) is None
    assert world.h.view == "RegisterAccountName"
    # behaviour.md §8: 'Error registering name {name}'
    assert world.h.node("register-name/error").p["text"] == error_registering("satoshi.reown.id")
    assert world.h.node("register-name/error").p["text"] == "Error registering name satoshi.reown.id"
