"""An engine session whose `embedded.*` calls run the real services: a real SQLite code store
and key vault, real SMTP to a local aiosmtpd server (the code is read from the received mail)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from modalcore.core.cmds import Call, CallSettled, EffectReply
from modalcore.durable.sqlite import SqliteDb
from modalcore.embedded.budget import BudgetStore, MailBudget
from modalcore.embedded.codes import EmailCodes
from modalcore.embedded.devicekeys import DeviceKeys
from modalcore.embedded.codestore import CodeStore
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.keys import KeyVault
from modalcore.embedded.mail import SmtpConfig, SmtpSender
from modalcore.embedded.masterkey import MasterKey
from modalcore.embedded.service import EmbeddedWallet, check_code, embedded_services
from modalcore.enginetest import Harness
from modalcore.runtime.clock import FakeClock
from modalcore.rules.embedded import AUTH_CONNECTOR_ID
from modalcore.core.services import ServiceContext, ServiceTable
from modalcore.slices.connecting import wallet_request
from modalcore.slices.embedded import CodeCheckResult, EmailCodeChecked
from modalcore.slices.model import Model, Step

from .device import DeviceKey

START_MS = 1_700_000_000_000
MASTER = MasterKey(bytes(range(32)))
SENDER = "Wallet <no-reply@modal.test>"




def open_wallet(path: Path, smtp: LocalSmtpServer) -> EmbeddedWallet:
    """The stores on one SQLite file's one connection, as the engine's open_wallet makes them (each
    step of an email sign-in is one transaction)."""
    sender = SmtpSender(SmtpConfig("127.0.0.1", smtp.port, SENDER, tls="none"))
    db = SqliteDb(path)
    return EmbeddedWallet(codes=EmailCodes(CodeStore(db), b"k" * 32), mailer=sender, vault=KeyVault(db, MASTER),
                          budget=MailBudget(BudgetStore(db)), devices=DeviceKeys(db), db=db)


@pytest.fixture
def smtp() -> Iterator[LocalSmtpServer]:
    """A real local SMTP server (aiosmtpd) on a free loopback port."""
    server = LocalSmtpServer().start()
    yield server
    server.stop()


@pytest.fixture
def wallet(tmp_path: Path, smtp: LocalSmtpServer) -> EmbeddedWallet:
    """The embedded wallet's real services over a fresh SQLite file, mailing through `smtp`."""
    return open_wallet(tmp_path / "embedded.db", smtp)


def offer_email(h: Harness) -> Harness:
    """The session as an engine with an SMTP server starts it: email sign-in offered."""
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, email_offered=True))
    h.session.render()
    return h


class Answered(EffectReply):
    """What a test's wallet request asks for (the reply a slice would name)."""


class EmailWorld:
    """One visitor's session (a Harness on a fake clock) against the shared embedded wallet."""

    def __init__(self, wallet: EmbeddedWallet, smtp: LocalSmtpServer, *, now: int = START_MS,
                 services: ServiceTable | None = None, config: Any = None, session: str = "session-1",
                 address: str = "", **build: Any) -> None:
        self.wallet = wallet
        self.session = session  # the session id its calls and its frame carry
        self.client_address = address  # the visitor's address as the engine sees it (its calls' context)
        self.smtp = smtp
        self.config = config
        self.services = {**embedded_services(wallet), **(services or {})}
        build.setdefault("options", {"networks": ["eip155:31337"]})
        self.loop = asyncio.new_event_loop()
        self.http: Any = None
        self.h = Harness(now=now, is_open=True, **build)
        self.device = DeviceKey()  # the browser's key (the sign-in frame's)
        offer_email(self.h)

    def run_calls(self) -> list[CallSettled]:
        """Run every pending embedded.* call through the real service and deliver its answer."""
        settled = []
        if self.config is not None and self.http is None:
            self.http = httpx.AsyncClient()
        for call in [c for c in self.h.cmds if isinstance(c, Call) and c.service in self.services]:
            self.h.cmds.remove(call)
            settled.append(self._run(call))
        for answer in settled:
            self.h.deliver(answer)
        return settled

    def _run(self, call: Call[Any]) -> CallSettled:
        async def go() -> Any:
            ctx = ServiceContext(session_id=self.session, project_id="test", clock=FakeClock(self.h.now),
                                 http=self.http, config=self.config, client_address=lambda: self.client_address)
            return await self.services[call.service](ctx, **call.args_data)

        try:
            return CallSettled(call.to, True, self.loop.run_until_complete(go()), context=call.context)
        except Exception as error:  # what the runtime's registry does with a ServiceError
            return CallSettled(call.to, False, None, error=str(error), context=call.context)

    def submit_email(self, email: str) -> None:
        assert self.h.intent("connect/email", "change", {"value": email}) == "ok"
        assert self.h.intent("connect/email", "submit", {"value": email}) == "ok"
        self.run_calls()

    def code_for(self, email: str) -> str:
        mails = self.smtp.mailbox.to(email)
        assert mails, f"no mail to {email}"
        found = re.search(r"\b(\d{6})\b", mails[-1].body)
        assert found is not None, mails[-1].body
        return found.group(1)

    def type_code(self, code: str) -> None:
        """The code typed in the engine-origin sign-in frame: its route checks it with the
        frame's public key and delivers the verdict (server/verify.py; issue 27)."""
        assert self.h.view == "EmailVerifyOtp"
        email = self.h.model.embedded.email
        answer = check_code(self.wallet, email, code, self.device.spki, self.h.now, session=self.session,
                            address=self.client_address)
        self.h.deliver(EmailCodeChecked(email=email, result=CodeCheckResult.model_validate(answer)))
        self.run_calls()

    def sign_in(self, email: str) -> str:
        self.submit_email(email)
        self.type_code(self.code_for(email))
        address = self.h.model.accounts.get("eip155").address
        assert address is not None
        return address

    def ask_wallet(self, method: str, params: object) -> None:
        """The page asks the embedded wallet (`method`, `params`), as a slice would."""
        def step(model: Model) -> Step:
            model, effect = wallet_request(model, AUTH_CONNECTOR_ID, method, params, Answered, "test")
            return model, [effect]

        self.h.apply(step)

    def settle_all(self) -> None:
        """Run calls until none is pending (a reply may ask for the next one)."""
        for _ in range(20):
            if not self.run_calls():
                return
