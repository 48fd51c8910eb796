"""E-mail to players, when the server has an SMTP server to send through (``--smtp-host``).

One message at a time through ``aiosmtplib``; a failure (the server is down, refuses the
recipient, times out) is logged and dropped: an e-mail is a courtesy, never part of a move.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from email.message import EmailMessage

import aiosmtplib

log = logging.getLogger(__name__)

SEND_TIMEOUT = 20.0  # seconds for one message, from connecting to the server's last answer


@dataclass(frozen=True)
class MailSettings:
    """Where mail goes out: an SMTP server (plain SMTP, STARTTLS when it offers it)."""

    host: str
    port: int = 25
    sender: str = "facedown@localhost"


class Mailer:
    """Sends plain-text messages through the configured SMTP server."""

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings
        self.sent = 0
        self.failed = 0

    async def send(self, to: str, subject: str, body: str) -> bool:
        """Send one message; False (and a log line) when it could not be sent."""
        message = EmailMessage()
        message["From"] = self.settings.sender
        message["To"] = to
        message["Subject"] = subject
        message.set_content(body)
        try:
            await aiosmtplib.send(
                message,
                hostname=self.settings.host,
                port=self.settings.port,
                timeout=SEND_TIMEOUT,
            )
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as e:
            self.failed += 1
            log.warning(
                "e-mail to a player could not be sent through %s:%s: %s",
                self.settings.host,
                self.settings.port,
                e,
            )
            return False
        self.sent += 1
        return True
