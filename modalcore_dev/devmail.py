"""A local SMTP server for development (`aiosmtpd`): keeps every received mail in memory so the
demo page can show it (issue 15 §6). It binds 127.0.0.1 on a free port: aiosmtpd's
`Controller(port=0)` does not work, so the port is picked first.
"""

from __future__ import annotations

import ssl
import threading
import warnings
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from modalcore_dev.devchain.nodes import free_port

HOST = "127.0.0.1"


@dataclass(frozen=True)
class ReceivedMail:
    sender: str
    recipients: tuple[str, ...]
    subject: str
    body: str


class Mailbox:
    """aiosmtpd handler: stores each message; thread-safe (the server runs in its own thread)."""

    def __init__(self, limit: int = 200) -> None:
        self._lock = threading.Lock()
        self._mail: list[ReceivedMail] = []
        self._limit = limit
        self.refusing = False  # answer every message with a permanent failure (tests)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        if self.refusing:
            return "554 5.7.1 Message refused"
        parsed = message_from_bytes(envelope.original_content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        part = parsed.get_body(preferencelist=("plain",))
        body = part.get_content() if part is not None else ""
        mail = ReceivedMail(str(envelope.mail_from), tuple(envelope.rcpt_tos),
                            str(parsed.get("Subject", "")), str(body))
        with self._lock:
            self._mail.append(mail)
            del self._mail[: -self._limit]
        return "250 Message accepted for delivery"

    def all(self) -> list[ReceivedMail]:
        with self._lock:
            return list(self._mail)

    def to(self, address: str) -> list[ReceivedMail]:
        wanted = address.lower()
        return [m for m in self.all() if wanted in (r.lower() for r in m.recipients)]


class LocalSmtpServer:
    """Start with `start()`, stop with `stop()`; `port` and `mailbox` are set once started.

    With `credentials` the server requires AUTH LOGIN/PLAIN with that user and password
    (over plain TCP: it is loopback only), so the sender's login step is exercised too; with
    `tls_context` it offers and requires STARTTLS.
    """

    def __init__(self, credentials: tuple[str, str] | None = None,
                 tls_context: ssl.SSLContext | None = None) -> None:
        self.mailbox = Mailbox()
        self.port = 0
        self._credentials = credentials
        self._tls = tls_context
        self._controller: Controller | None = None

    def _authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str,
                      data: Any) -> AuthResult:
        ok = (isinstance(data, LoginPassword) and self._credentials is not None
              and (data.login.decode(), data.password.decode()) == self._credentials)
        return AuthResult(success=ok, handled=False)

    def start(self) -> LocalSmtpServer:
        """Listens on a free port; started again after `stop()`, on the same port."""
        extra: dict[str, Any] = {}
        if self._credentials is not None:
            extra = {"authenticator": self._authenticate, "auth_required": True,
                     "auth_require_tls": self._tls is not None}
            if self._tls is None:  # deliberate: loopback only; aiosmtpd warns on each connection
                warnings.filterwarnings("ignore", "Requiring AUTH while not requiring TLS")
        if self._tls is not None:
            extra.update(tls_context=self._tls, require_starttls=True)
        self.port = self.port or free_port(HOST)
        self._controller = Controller(self.mailbox, hostname=HOST, port=self.port, **extra)
        self._controller.start()
        return self

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None
