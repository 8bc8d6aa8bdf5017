"""Mail (issue 15): codes sent over real SMTP to a local aiosmtpd server and read back."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from modalcore.embedded.codes import EmailCodes
from modalcore.embedded.codestore import CodeStore
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.embedded.mail import CODE_SUBJECT, MailError, SmtpConfig, SmtpSender
from modalcore.embedded.otp import Verdict

SENDER = "Modal <no-reply@modal.test>"


async def test_code_travels_through_real_smtp_and_is_accepted(
        smtp: LocalSmtpServer, tmp_path: Path) -> None:
    codes = EmailCodes(CodeStore(tmp_path / "c.sqlite"), b"s" * 32)
    email, code = codes.request("someone@example.com", 1_000, (777_123).to_bytes(8, "big"))
    sender = SmtpSender(SmtpConfig("127.0.0.1", smtp.port, SENDER, tls="none"))
    await sender.send_code(email, code)
    [mail] = smtp.mailbox.to("someone@example.com")
    assert mail.subject == CODE_SUBJECT
    assert mail.sender == "no-reply@modal.test"
    read_back = mail.body.split("Your verification code is ")[1][:6]
    assert read_back == "777123"
    assert codes.submit(email, read_back, 2_000).verdict is Verdict.ACCEPTED


async def test_login_with_operator_credentials() -> None:
    server = LocalSmtpServer(credentials=("mailer", "s3cret")).start()
    try:
        good = SmtpConfig("127.0.0.1", server.port, SENDER, tls="none", user="mailer",
                          password="s3cret")
        await SmtpSender(good).send_code("a@example.com", "123456")
        assert len(server.mailbox.to("a@example.com")) == 1
        bad = SmtpConfig("127.0.0.1", server.port, SENDER, tls="none", user="mailer",
                         password="wrong-password")
        with pytest.raises(MailError) as refused:
            await SmtpSender(bad).send_code("b@example.com", "123456")
        assert str(refused.value) == "SMTP login failed (535)"
        assert "wrong-password" not in repr(refused.value) and "wrong-password" not in repr(bad)
        assert server.mailbox.to("b@example.com") == []
    finally:
        server.stop()


def _self_signed(tmp_path: Path) -> tuple[ssl.SSLContext, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    return context, cert_path


async def test_starttls_with_login(tmp_path: Path) -> None:
    context, ca = _self_signed(tmp_path)
    server = LocalSmtpServer(credentials=("mailer", "pw"), tls_context=context).start()
    try:
        config = SmtpConfig("127.0.0.1", server.port, SENDER, tls="starttls", user="mailer",
                            password="pw", ca_file=str(ca))
        await SmtpSender(config).send_code("tls@example.com", "654321")
        assert "654321" in server.mailbox.to("tls@example.com")[0].body
        # without STARTTLS the server refuses to take the mail
        plain = SmtpConfig("127.0.0.1", server.port, SENDER, tls="none")
        with pytest.raises(MailError):
            await SmtpSender(plain).send_code("plain@example.com", "654321")
        # an untrusted certificate is refused by the sender
        untrusted = SmtpConfig("127.0.0.1", server.port, SENDER, tls="starttls")
        with pytest.raises(MailError) as refused:
            await SmtpSender(untrusted).send_code("x@example.com", "654321")
        assert str(refused.value).startswith("SMTP starttls failed")
        assert len(server.mailbox.all()) == 1
    finally:
        server.stop()


async def test_unreachable_server_is_a_typed_error() -> None:
    from modalcore_dev.devchain.nodes import free_port

    config = SmtpConfig("127.0.0.1", free_port(), SENDER, tls="none", timeout_s=5)
    with pytest.raises(MailError) as failed:
        await SmtpSender(config).send_code("a@example.com", "123456")
    assert str(failed.value).startswith("SMTP connect failed")


@pytest.mark.parametrize("kwargs", [{"tls": "tls"}, {"port": 0}, {"user": "only-user"}])
def test_bad_config_is_refused(kwargs: dict[str, object]) -> None:
    base: dict[str, object] = {"host": "127.0.0.1", "port": 25, "sender": SENDER}
    with pytest.raises(ValueError):
        SmtpConfig(**{**base, **kwargs})  # type: ignore[arg-type]


async def test_the_mail_says_the_code_is_typed_only_in_the_wallets_frame_on_the_engines_domain(
        smtp: LocalSmtpServer) -> None:
    """Issue 38 item 8: a host page can draw a code field of its own; the mail tells the visitor
    where the code may be typed (the engine's host, inside the wallet modal) and that nobody else
    asks for it."""
    sender = SmtpSender(SmtpConfig("127.0.0.1", smtp.port, SENDER, tls="none", site="wallet.example.com"))
    await sender.send_code("someone@example.com", "123456")
    [mail] = smtp.mailbox.to("someone@example.com")
    body = " ".join(mail.body.split())
    assert ("Type it only in the wallet's own sign-in window from wallet.example.com, inside the wallet modal. "
            "Never type it in a field the page draws itself, and never give it to anyone: "
            "whoever has it can use your wallet.") in body
