"""Turn e-mails through a real local SMTP server (aiosmtpd) that wants a login: over TLS from
the first byte (port 465 style), and after STARTTLS; a server that offers no STARTTLS gets
nothing when STARTTLS is required (a login never crosses in the clear); a wrong password is a
logged failure that names neither the password nor the address."""

from __future__ import annotations

import asyncio
import contextlib
import email
import gc
import logging
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from facedown.cli import main
from facedown.server.accounts.mail import Mailer, MailSettings, Security

from ..harness import free_port

OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
USER, PASSWORD = "facedown-mailer", "s3cret-of-the-mailer"


@dataclass
class Inbox:
    messages: list[Message] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"

    def authenticate(
        self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any
    ) -> AuthResult:
        ok = (
            isinstance(data, LoginPassword)
            and data.login.decode() == USER
            and data.password.decode() == PASSWORD
        )
        if ok:
            self.logins.append(data.login.decode())
        return AuthResult(success=ok, handled=False)  # aiosmtpd answers 235 or 535


@pytest.fixture
def certificate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ssl.SSLContext:
    """A certificate for 127.0.0.1, made here, that the process trusts (SSL_CERT_FILE, as an
    operator names a private authority); the SMTP server's TLS context."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = ["-keyout", str(key), "-out", str(cert), "-days", "2", "-nodes"]
    name = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", *made, *name],
        check=True,
        capture_output=True,
    )
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


@contextlib.contextmanager
def smtp(**options: Any) -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(
        inbox, hostname="127.0.0.1", port=port, authenticator=inbox.authenticate, **options
    )
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def send(port: int, security: Security, password: str = PASSWORD) -> tuple[Mailer, bool]:
    mailer = Mailer(
        MailSettings("127.0.0.1", port, "facedown@example.test", security, USER, password)
    )
    sent = asyncio.run(mailer.send("bob@example.test", "Your move", "Kivo at table ABC123."))
    gc.collect()  # a socket the send left open warns here, in the test that left it
    return mailer, sent


# aiosmtpd does not count TLS from the first byte as TLS for its AUTH rule: it is told (and
# warns of what it was told, which is right here: the whole link is TLS).
IMPLICIT_TLS = {"auth_required": True, "auth_require_tls": False}
IMPLICIT_TLS_WARNING = "ignore:Requiring AUTH while not requiring TLS:UserWarning"


@pytest.mark.filterwarnings(IMPLICIT_TLS_WARNING)
def test_a_login_over_tls_from_the_first_byte(certificate: ssl.SSLContext) -> None:
    with smtp(ssl_context=certificate, **IMPLICIT_TLS) as (inbox, port):
        mailer, sent = send(port, "tls")
    assert sent
    assert (mailer.sent, mailer.failed) == (1, 0)
    assert inbox.logins == [USER]
    [message] = inbox.messages
    assert message["To"] == "bob@example.test"
    assert message["Subject"] == "Your move"


def test_a_login_after_starttls(certificate: ssl.SSLContext) -> None:
    options = {"tls_context": certificate, "require_starttls": True, "auth_required": True}
    with smtp(**options) as (inbox, port):
        _, sent = send(port, "starttls")
    assert sent
    assert inbox.logins == [USER]
    assert len(inbox.messages) == 1


@pytest.mark.filterwarnings(IMPLICIT_TLS_WARNING)
def test_required_starttls_sends_nothing_to_a_server_without_it() -> None:
    with smtp(auth_require_tls=False) as (inbox, port):  # it would take a login in the clear
        mailer, sent = send(port, "starttls")
    assert not sent
    assert (mailer.sent, mailer.failed) == (0, 1)
    assert inbox.logins == []
    assert inbox.messages == []


@pytest.mark.filterwarnings(IMPLICIT_TLS_WARNING)
def test_a_refused_login_is_logged_without_the_password_or_the_address(
    certificate: ssl.SSLContext, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        smtp(ssl_context=certificate, **IMPLICIT_TLS) as (inbox, port),
        caplog.at_level(logging.WARNING, logger="facedown.server.accounts.mail"),
    ):
        mailer, sent = send(port, "tls", password="not-the-password")
    assert not sent
    assert mailer.failed == 1
    assert inbox.messages == []
    assert "could not be sent" in caplog.text
    assert "not-the-password" not in caplog.text
    assert "bob@example.test" not in caplog.text
    assert "not-the-password" not in repr(mailer.settings)


def test_serve_wants_the_login_password_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("FACEDOWN_SMTP_PASSWORD", raising=False)
    args = ["serve", "--data", str(tmp_path), "--smtp-host", "127.0.0.1", "--smtp-user", USER]
    assert main(args) == 2
    assert "FACEDOWN_SMTP_PASSWORD" in capsys.readouterr().err


def test_serve_wants_a_public_url_for_the_links_in_the_mails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["serve", "--data", str(tmp_path), "--smtp-host", "127.0.0.1"]
    assert main(args) == 2
    assert "--public-url" in capsys.readouterr().err


def test_the_mailer_sends_to_one_mailbox_and_no_injected_header() -> None:
    """The last check before the SMTP server: whatever reached the mailer, one mailbox in the
    envelope and in ``To``, and no header with a line break in it."""
    with smtp(auth_require_tls=False) as (inbox, port):
        mailer = Mailer(MailSettings("127.0.0.1", port, "facedown@example.test", "auto"))
        attempts = [
            ("victim@example.test, postmaster@example.test", "Your move", {}),
            ("victim@example.test", "Your move\r\nBcc: everyone@example.test", {}),
            ("victim@example.test", "Your move", {"List-Unsubscribe": "<x>\r\nBcc: e@x.test"}),
        ]
        for to, subject, headers in attempts:
            assert not asyncio.run(mailer.send(to, subject, "text", headers))
        assert asyncio.run(mailer.send("bob@example.test", "Your move", "text", {"X-A": "b"}))
        gc.collect()
    assert (mailer.sent, mailer.failed) == (1, 3)
    [message] = inbox.messages
    assert message["To"] == "bob@example.test"
    assert message["X-A"] == "b"
