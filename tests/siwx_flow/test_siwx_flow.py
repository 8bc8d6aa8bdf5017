"""The sign-in flow through a session, with the real SIWX services and real signatures."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct

from modalcore.core.cmds import Call, CallSettled, EffectSettled, Track
from modalcore.rules.wallet_requests import NOT_SAVED, NOT_SAVED_CODE
from modalcore.siwx.backend.service import siwx_services
from modalcore.siwx.backend.store import SqliteSiwxStore
from modalcore.siwx.backend.tokens import verify_token
from modalcore.services.domain.handles import SIWX_REVOKE

from ..connect.conftest import ADDRESS, dev_session


def run(awaitable: Awaitable[Any]) -> Any:
    """A service's answer, from synchronous test code."""

    async def wait() -> Any:
        return await awaitable

    return asyncio.run(wait())

KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
OTHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
SIGNER = Account.from_key("0x" + "11" * 32)


class SiwxWorld:
    """A Harness whose service calls run the real SIWX services against one store."""

    def __init__(self, required: bool = True, store: SqliteSiwxStore | None = None) -> None:
        self.store = store or SqliteSiwxStore(":memory:")
        self.http = httpx.AsyncClient()
        self.clock_ms = 1_700_000_000_000
        self.services = siwx_services(self.store, self.http, SIGNER, clock=lambda: self.clock_ms)
        self.driver = dev_session({"siwx": {"required": required, "statement": "Sign in to the demo"}},
                                  now=self.clock_ms)
        self.done = 0

    def run_calls(self) -> None:
        """Run every new siwx.* call and deliver its result (repeat until quiet)."""
        while True:
            calls = [c for c in self.driver.log if isinstance(c, Call)][self.done:]
            if not calls:
                return
            self.done += len(calls)
            for call in calls:
                if not call.service.name.startswith("siwx."):
                    continue
                result = run(self.services[call.service](**call.args_data))
                self.driver.deliver(CallSettled(call.to, True, result))

    def wallet_signs(self, key: str = KEY, tamper: bool = False) -> None:
        effect = self.driver.last_effect()
        assert effect["req"]["method"] == "personal_sign"
        text = bytes.fromhex(effect["req"]["params"][0][2:]).decode()
        if tamper:
            text = text.replace("Sign in to the demo", "Sign in to the evil")
        signature = Account.sign_message(encode_defunct(text=text), private_key=key).signature.hex()
        self.driver.answer_last(signature if signature.startswith("0x") else "0x" + signature)
        self.run_calls()

    def connect(self) -> None:
        self.driver.connect_wallet()
        self.run_calls()

    def sign_in(self, **kwargs: Any) -> None:
        self.driver.intent("siwx/sign")
        self.run_calls()
        self.wallet_signs(**kwargs)


def test_connect_without_a_session_opens_siwx_sign_message() -> None:
    world = SiwxWorld()
    world.connect()
    assert world.driver.model.router.view == "SIWXSignMessage"
    assert world.driver.model.modal.open is True


def test_signing_verifies_on_the_server_stores_the_session_and_closes() -> None:
    world = SiwxWorld()
    world.connect()
    world.sign_in()
    model = world.driver.model
    assert model.siwx.has_session is True
    assert model.modal.open is False
    assert asyncio.run(world.store.sessions_for(ADDRESS.lower(), None, None, world.clock_ms))
    assert any(isinstance(c, Track) and c.event == "SIWX_AUTH_SUCCESS" for c in world.driver.log)
    token = model.siwx.token
    assert token and verify_token(token, SIGNER.address, world.clock_ms // 1000)["address"] == ADDRESS


def test_the_message_names_the_verified_origin_not_a_client_claim() -> None:
    world = SiwxWorld()
    world.connect()
    world.driver.intent("siwx/sign")
    world.run_calls()
    text = bytes.fromhex(world.driver.last_effect()["req"]["params"][0][2:]).decode()
    assert text.startswith("localhost:1 wants you to sign in with your Ethereum account:")
    assert "URI: http://localhost:1" in text
    assert "Chain ID: 31337" in text


def test_authenticating_snack_shows_while_signing_without_auto_close() -> None:
    world = SiwxWorld()
    world.connect()
    world.driver.intent("siwx/sign")
    snack = world.driver.model.snack
    assert (snack.message, snack.variant, snack.auto_close) == ("Authenticating...", "loading", False)


def test_a_declined_signature_shows_signature_declined() -> None:
    world = SiwxWorld()
    world.connect()
    world.driver.intent("siwx/sign")
    world.run_calls()
    world.driver.answer_last(code=4001, message="User rejected the request.")
    world.driver.advance(150)  # the loading snack closes first, the new one shows 150 ms later
    assert world.driver.model.snack.message == "Signature declined"
    assert world.driver.model.siwx.has_session is False
    assert any(isinstance(c, Track) and c.event == "SIWX_AUTH_ERROR" for c in world.driver.log)


def test_a_wallet_error_reading_as_the_engines_not_sent_text_is_a_decline() -> None:
    """Issue 30: "not sent" (the session could not be saved, the wallet never asked) is a failure
    kind only the engine sets; a wallet answering with the same code and text declined."""
    world = SiwxWorld()
    world.connect()
    world.driver.intent("siwx/sign")
    world.run_calls()
    world.driver.answer_last(code=NOT_SAVED_CODE, message=NOT_SAVED)
    world.driver.advance(150)
    assert world.driver.model.snack.message == "Signature declined"


def test_a_request_the_engine_did_not_send_says_so() -> None:
    world = SiwxWorld()
    world.connect()
    world.driver.intent("siwx/sign")
    world.run_calls()
    eid = world.driver.last_effect()["eid"]
    world.driver.deliver(EffectSettled(eid, world.driver.session.effects[eid], False, error_code=NOT_SAVED_CODE,
                                       error_message=NOT_SAVED, failure="not_sent"))
    world.driver.advance(150)
    assert world.driver.model.snack.message == NOT_SAVED
    assert world.driver.model.siwx.has_session is False


def test_a_message_altered_after_signing_is_refused_and_nothing_stored() -> None:
    world = SiwxWorld()
    world.connect()
    world.sign_in(tamper=True)
    world.driver.advance(150)
    assert world.driver.model.siwx.has_session is False
    assert world.driver.model.snack.message == "Signature declined"
    assert asyncio.run(world.store.sessions_for(ADDRESS.lower(), None, None, world.clock_ms)) == []


def test_a_signature_by_another_account_is_refused() -> None:
    world = SiwxWorld()
    world.connect()
    world.sign_in(key=OTHER_KEY)
    assert world.driver.model.siwx.has_session is False


def test_cancel_when_sign_in_is_required_disconnects_and_resets_to_connect() -> None:
    world = SiwxWorld(required=True)
    world.connect()
    world.driver.intent("siwx/cancel")
    world.driver.answer_last(None)  # the wallet's revoke answer
    assert world.driver.model.accounts.get("eip155").status == "disconnected"
    assert world.driver.model.router.view == "Connect"
    assert any(isinstance(c, Track) and c.event == "CLICK_CANCEL_SIWX" for c in world.driver.log)


def test_cancel_when_sign_in_is_optional_closes_and_stays_connected() -> None:
    world = SiwxWorld(required=False)
    world.connect()
    world.driver.intent("siwx/cancel")
    assert world.driver.model.accounts.get("eip155").status == "connected"
    assert world.driver.model.modal.open is False
    assert world.driver.model.router.view == "Connect"


def test_closing_is_disabled_in_the_sign_view_while_sign_in_is_required() -> None:
    world = SiwxWorld(required=True)
    world.connect()
    assert world.driver.node("modal").p["closable"] is False
    world.driver.intent("modal", "close")
    assert world.driver.model.modal.open is True
    assert world.driver.model.modal.shaking is True


def test_an_existing_session_skips_the_sign_view() -> None:
    store = SqliteSiwxStore(":memory:")
    first = SiwxWorld(store=store)
    first.connect()
    first.sign_in()
    second = SiwxWorld(store=store)
    second.connect()
    assert second.driver.model.siwx.has_session is True
    assert second.driver.model.router.view != "SIWXSignMessage"
    assert second.driver.model.modal.open is False


def test_a_revoked_session_asks_to_sign_again() -> None:
    store = SqliteSiwxStore(":memory:")
    first = SiwxWorld(store=store)
    first.connect()
    first.sign_in()
    run(first.services[SIWX_REVOKE](address=ADDRESS, domain="localhost:1"))
    second = SiwxWorld(store=store)
    second.connect()
    assert second.driver.model.router.view == "SIWXSignMessage"


def test_switching_to_an_account_without_a_session_asks_to_sign() -> None:
    world = SiwxWorld()
    world.connect()
    world.sign_in()
    other = Account.from_key(OTHER_KEY).address
    world.driver.wallet_event("uuid-1", "accountsChanged", [other.lower()])
    world.run_calls()
    assert world.driver.model.router.view == "SIWXSignMessage"
    assert world.driver.model.modal.open is True


def test_a_failing_session_lookup_reports_init_failure_and_disconnects() -> None:
    world = SiwxWorld()
    world.driver.connect_wallet()
    call = [c for c in world.driver.log if isinstance(c, Call) and c.service.name == "siwx.sessions"][-1]
    world.driver.deliver(CallSettled(call.to, False, None, "store down"))
    assert world.driver.model.snack.message == "A problem occurred while trying initialize authentication"
    world.driver.answer_last(None)
    assert world.driver.model.accounts.get("eip155").status == "disconnected"
    assert world.driver.model.router.view == "Connect"
