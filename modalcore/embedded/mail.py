"""Sending mail over SMTP (issue 15): the operator's server, stdlib smtplib in a worker thread.

Operator config: host, port, TLS mode ("none", "starttls" or "ssl"), user, password, sender.
Errors come back as one typed MailError whose message never contains the password.
"""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Literal

TlsMode = Literal["none", "starttls", "ssl"]
TLS_MODES: tuple[TlsMode, ...] = ("none", "starttls", "ssl")
CODE_SUBJECT = "Your verification code"


class MailError(Exception):
    """The SMTP server refused or could not be reached; the message says which step failed."""


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int
    sender: str
    tls: TlsMode = "starttls"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout_s: float = 10.0
    ca_file: str | None = None  # trust this CA (e.g. a private relay); None: the system's
    site: str = ""  # the engine's host as browsers reach it: the only place the code may be typed

    def __post_init__(self) -> None:
        if self.tls not in TLS_MODES:
            raise ValueError(f"smtp tls must be one of {', '.join(TLS_MODES)}")
        if not 0 < self.port < 65536:
            raise ValueError("smtp port must be 1..65535")
        if (self.user is None) != (self.password is None):
            raise ValueError("smtp user and password go together")


def where_to_type(site: str) -> str:
    """Where the code may be typed (issue 38 item 8): a host page can draw a code field of its
    own; the mail tells the visitor that only the wallet's frame, from the engine's domain, asks."""
    place = f"the wallet's own sign-in window from {site}" if site else "the wallet's own sign-in window"
    return (f"Type it only in {place}, inside the wallet modal. Never type it in a field the page "
            "draws itself, and never give it to anyone: whoever has it can use your wallet.")


def code_message(sender: str, to: str, code: str, site: str = "") -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = CODE_SUBJECT
    message.set_content(
        f"Your verification code is {code}\n\n"
        f"{where_to_type(site)}\n\n"
        "It expires in 10 minutes. If you did not ask for it, ignore this email.\n"
    )
    return message


class SmtpSender:
    def __init__(self, config: SmtpConfig) -> None:
        self.config = config

    async def send(self, message: EmailMessage) -> None:
        await asyncio.to_thread(self._send_blocking, message)

    async def send_code(self, to: str, code: str) -> None:
        await self.send(code_message(self.config.sender, to, code, self.config.site))

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.config.ca_file)

    def _send_blocking(self, message: EmailMessage) -> None:
        c = self.config
        step = "connect"
        try:
            client: smtplib.SMTP
            if c.tls == "ssl":
                client = smtplib.SMTP_SSL(c.host, c.port, timeout=c.timeout_s,
                                          context=self._context())
            else:
                client = smtplib.SMTP(c.host, c.port, timeout=c.timeout_s)
            with client:
                if c.tls == "starttls":
                    step = "starttls"
                    client.starttls(context=self._context())
                if c.user is not None and c.password is not None:
                    step = "login"
                    client.login(c.user, c.password)
                step = "send"
                client.send_message(message)
        except (smtplib.SMTPException, OSError) as error:
            reason = type(error).__name__
            if isinstance(error, smtplib.SMTPResponseException):
                reason = f"{error.smtp_code}"
            raise MailError(f"SMTP {step} failed ({reason})") from None
