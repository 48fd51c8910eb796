"""E-mail to players, when the server has an SMTP server to send through (``--smtp-host``).

One message at a time through ``aiosmtplib``; a failure (the server is down, refuses the
recipient or the login, times out) is logged and dropped: an e-mail is a courtesy, never part
of a move.  The link to the SMTP server is secured as ``security`` says: ``auto`` takes STARTTLS
when the server offers it, ``starttls`` sends nothing unless it does (so a login never crosses
the network in the clear), ``tls`` speaks TLS from the first byte (port 465).  Certificates are
checked against the system's authorities (``SSL_CERT_FILE`` names others).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any, Literal

import aiosmtplib
from aiosmtplib.protocol import SMTPProtocol

log = logging.getLogger(__name__)

SEND_TIMEOUT = 20.0  # seconds for one message, from connecting to the server's last answer
CLOSE_TIMEOUT = 5.0  # seconds to wait, after a message, for its connection to be gone


Security = Literal["auto", "starttls", "tls"]
SECURITIES: tuple[Security, ...] = ("auto", "starttls", "tls")


@dataclass(frozen=True)
class MailSettings:
    """Where mail goes out: an SMTP server, how the link to it is secured, and the account to
    log in with (none: no login)."""

    host: str
    port: int = 25
    sender: str = "facedown@localhost"
    security: Security = "auto"
    username: str | None = None
    password: str | None = field(default=None, repr=False)


class _Link(aiosmtplib.SMTP):
    """aiosmtplib's client, and a way to wait until its connection is truly gone.

    Its ``close`` only starts the closing (over TLS, a shutdown exchange with the server): a
    loop that stops soon after (a server shutting down, ``asyncio.run``) would leave the
    socket open.  ``gone`` waits for the connection's end when one was made."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._lost = asyncio.Event()
        self._made = False

    def close(self) -> None:
        if self.transport is not None:
            self._made = True
        super().close()

    def _on_connection_lost(self, protocol: SMTPProtocol) -> None:
        self._lost.set()
        super()._on_connection_lost(protocol)

    async def gone(self) -> None:
        if self._made:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), CLOSE_TIMEOUT)


class Mailer:
    """Sends plain-text messages through the configured SMTP server."""

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings
        self.sent = 0
        self.failed = 0

    async def send(
        self, to: str, subject: str, body: str, headers: Mapping[str, str] | None = None
    ) -> bool:
        """Send one message to one mailbox (``to`` a bare address), with ``headers`` added;
        False (and a log line) when it could not be sent."""
        message = EmailMessage()
        try:
            message["From"] = self.settings.sender
            message["To"] = to
            message["Subject"] = subject
            for name, value in (headers or {}).items():
                message[name] = value
        except ValueError:  # a line break in a header: never from a checked address
            self.failed += 1
            log.warning("an e-mail with a broken header was not sent")
            return False
        if len(message["To"].addresses) != 1:
            self.failed += 1
            log.warning("an e-mail to more than one mailbox was not sent")
            return False
        message.set_content(body)
        security = self.settings.security
        link = _Link(
            hostname=self.settings.host,
            port=self.settings.port,
            timeout=SEND_TIMEOUT,
            use_tls=security == "tls",
            start_tls={"auto": None, "starttls": True, "tls": False}[security],
            username=self.settings.username,
            password=self.settings.password if self.settings.username else None,
        )
        try:
            async with link:
                # The envelope's one recipient is ``to`` itself, whatever a header says.
                await link.send_message(message, recipients=[to])
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as e:
            self.failed += 1
            log.warning(
                "e-mail to a player could not be sent through %s:%s: %s",
                self.settings.host,
                self.settings.port,
                e,
            )
            return False
        finally:
            await link.gone()
        self.sent += 1
        return True
