"""Turn e-mails only to a confirmed address, in bounded numbers (docs/turn-based.md).

* An address is one mailbox: :func:`single_mailbox` takes exactly one ``local@domain``
  (parsed by the standard library's ``email.headerregistry``), ASCII, within RFC 5321's length
  limits, and refuses lists, display names, comments, quoting, line breaks and the rest.
* It gets nothing but one confirmation mail until its owner opens the link in that mail: a
  256-bit random token (only its SHA-256 is stored), single-use, expiring after
  ``confirm_seconds``.  Changing the address un-verifies the account: turn e-mails go only to
  the address that was confirmed, and only while it is still the account's.
* Every mail counts against hourly caps kept in the store (so a restart or a second process
  of a cluster counts on): per account, per address (whatever the accounts), and for
  confirmation mails a lower one per address; the hour before counts in the share of it still
  within the last 60 minutes, so a new clock hour gives no second helping.  A mail past a cap
  is not sent.
* Every mail carries a signed unsubscribe link (``List-Unsubscribe``, with RFC 8058's
  ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``) that removes the address from the
  account without signing in.  Mails are written in the account's language (:mod:`.mail_text`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from email.errors import HeaderParseError
from email.headerregistry import HeaderRegistry
from email.utils import getaddresses
from typing import Literal
from urllib.parse import urlencode

from ...store import MailAccount, MailStore, Store, UserRecord
from . import mail_text
from .mail import Mailer

log = logging.getLogger(__name__)

ADDRESS_LENGTH = 254  # the longest address SMTP carries (RFC 5321's path limit, less <>)
LOCAL_LENGTH = 64  # the longest local part (RFC 5321)
LABEL_LENGTH = 63  # the longest label of a domain name
_LOCAL_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~."
)
_LABEL_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_HEADERS = HeaderRegistry()


class BadAddress(ValueError):
    """Not exactly one mailbox; the message says why, in words a player understands."""


def single_mailbox(text: str) -> str:
    """``text`` (trimmed) when it is exactly one plain address ``local@domain``; else
    BadAddress.  No display name, comment, group, list, quoting or domain literal; ASCII (an
    international domain in its ``xn--`` form); no line break or other control character."""
    address = text.strip()
    _plain(address)
    try:
        header = _HEADERS("To", address)
        listed = getaddresses([address])
    except (HeaderParseError, IndexError, ValueError):
        raise BadAddress(_NOT_AN_ADDRESS) from None
    mailboxes = header.addresses  # type: ignore[attr-defined]
    if header.defects or len(mailboxes) != 1 or len(listed) != 1:
        raise BadAddress(_NOT_AN_ADDRESS)
    [mailbox] = mailboxes
    if mailbox.display_name or mailbox.addr_spec != address or listed[0] != ("", address):
        raise BadAddress(_NOT_AN_ADDRESS)
    local, _, domain = address.rpartition("@")
    if not _local(local) or not _domain(domain):
        raise BadAddress(_NOT_AN_ADDRESS)
    return address


_NOT_AN_ADDRESS = "that does not look like an e-mail address"


def _plain(address: str) -> None:
    """Refuse, saying why, what no single plain address holds."""
    if not address:
        raise BadAddress("the address is empty")
    if any(c in "\r\n" or not c.isprintable() for c in address):
        raise BadAddress("an address holds no line breaks or control characters")
    if len(address) > ADDRESS_LENGTH:
        raise BadAddress(f"an address is at most {ADDRESS_LENGTH} characters")
    if any(c in ",;" for c in address):
        raise BadAddress("one address only: no lists, no commas or semicolons")
    if not address.isascii():
        raise BadAddress("write the address in ASCII (an international domain as xn--...)")
    if any(c.isspace() or c in '<>()[]":\\' for c in address):
        raise BadAddress("only the address itself: no name, brackets, quotes or spaces")


def _local(local: str) -> bool:
    return (
        0 < len(local) <= LOCAL_LENGTH
        and not set(local) - _LOCAL_CHARACTERS
        and not local.startswith(".")
        and not local.endswith(".")
        and ".." not in local
    )


def _domain(domain: str) -> bool:
    labels = domain.split(".")
    return len(labels) >= 2 and all(
        0 < len(label) <= LABEL_LENGTH
        and not set(label) - _LABEL_CHARACTERS
        and not label.startswith("-")
        and not label.endswith("-")
        for label in labels
    )


@dataclass(frozen=True)
class MailLimits:
    """How much mail the server sends in an hour (each cap counted in the store)."""

    per_account: int = 20  # mails of any kind to one account
    per_address: int = 20  # mails to one address, whichever accounts name it
    confirmations: int = 3  # confirmation mails to one address
    confirm_seconds: float = 24 * 3600.0  # how long a confirmation link works


@dataclass(frozen=True)
class MailState:
    """An account's e-mail as its owner sees it."""

    email: str | None
    verified: bool
    language: str
    sent: bool = False  # a confirmation mail went out just now


Confirmed = Literal["confirmed", "expired", "unknown"]


class MailLimited(Exception):
    """A confirmation mail was refused by an hourly cap: nothing was changed."""


class Postbox:
    """The confirmations, the caps, the unsubscribe links and the mails themselves."""

    def __init__(
        self,
        store: Store,
        mailer: Mailer | None,
        public_url: str,
        secret: str,
        limits: MailLimits | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.users = store
        self.store: MailStore = store  # type: ignore[assignment]  # SqlStore and MemoryStore are both
        self.mailer = mailer
        self.public_url = public_url.rstrip("/")
        self.key = hmac.new(secret.encode(), b"facedown mail", hashlib.sha256).digest()
        self.limits = limits or MailLimits()
        self.now = now

    # ------------------------------------------------------------------ the account's side
    async def state(self, user: UserRecord) -> MailState:
        mail = await self.store.mail_account(user.id)
        lang = mail.language if mail else mail_text.DEFAULT_LANGUAGE
        verified = user.email is not None and mail is not None and mail.verified == user.email
        return MailState(user.email, verified, lang)

    async def set_address(self, user: UserRecord, address: str | None, lang: str) -> MailState:
        """Give the account ``address`` (already checked by :func:`single_mailbox`; None:
        none) and its mails ``lang``.  A new address is not verified: a confirmation mail goes
        to it (MailLimited when a cap refuses it, and then nothing changes)."""
        lang = mail_text.language(lang)
        mail = await self.store.mail_account(user.id) or MailAccount(user.id)
        if address is None:
            await self.store.save_mail_account(
                replace(mail, language=lang, pending=None, token_hash=None, token_expires=None)
            )
            await self.users.set_email(user.id, None, self.now())
            return MailState(None, False, lang)
        if mail.verified == address:  # confirmed before: no new confirmation needed
            await self.store.save_mail_account(
                replace(mail, language=lang, pending=None, token_hash=None, token_expires=None)
            )
            await self.users.set_email(user.id, address, self.now())
            return MailState(address, True, lang)
        if self.mailer is None:  # this server sends no mail: kept, never confirmed
            await self.store.save_mail_account(replace(mail, language=lang))
            await self.users.set_email(user.id, address, self.now())
            return MailState(address, False, lang)
        digest = self._digest(address)
        caps = [
            (f"account:{user.id}", self.limits.per_account),
            (f"address:{digest}", self.limits.per_address),
            (f"confirm:{digest}", self.limits.confirmations),
        ]
        if not await self.store.take_mail(caps, self._hour(), self._carried()):
            raise MailLimited
        token = secrets.token_urlsafe(32)
        expires = self.now() + self.limits.confirm_seconds
        pending = replace(
            mail,
            language=lang,
            pending=address,
            token_hash=_hash(token),
            token_expires=expires,
        )
        await self.store.save_mail_account(pending)
        await self.users.set_email(user.id, address, self.now())
        link = f"{self.public_url}/api/mail/confirm?{urlencode({'t': token})}"
        hours = max(1, round(self.limits.confirm_seconds / 3600))
        unsubscribe = self.unsubscribe_url(user.id, address)
        subject, body = mail_text.confirmation(lang, user.name, link, unsubscribe, hours)
        sent = await self.mailer.send(address, subject, body, self._list_headers(unsubscribe))
        return MailState(address, False, lang, sent=sent)

    # ------------------------------------------------------------------ the links
    async def confirm(self, token: str) -> tuple[Confirmed, str]:
        """Use a confirmation link's token; what came of it, and the account's language."""
        if not token or len(token) > 128:
            return "unknown", mail_text.DEFAULT_LANGUAGE
        before = await self.store.confirm_mail(_hash(token), self.now())
        if before is None:
            return "unknown", mail_text.DEFAULT_LANGUAGE
        if before.token_expires is None or before.token_expires <= self.now():
            return "expired", before.language
        user = await self.users.get_user(before.user_id)
        if user is None or user.email != before.pending:
            return "unknown", before.language
        return "confirmed", before.language

    def unsubscribe_url(self, user_id: str, address: str) -> str:
        query = urlencode({"u": user_id, "s": self._signature(user_id, address)})
        return f"{self.public_url}/api/mail/unsubscribe?{query}"

    async def unsubscribe_language(self, user_id: str, signature: str) -> str | None:
        """The account's language when the link is valid for its current address; else None."""
        user = await self._signed(user_id, signature)
        if user is None:
            return None
        mail = await self.store.mail_account(user.id)
        return mail.language if mail else mail_text.DEFAULT_LANGUAGE

    async def unsubscribe(self, user_id: str, signature: str) -> bool:
        """Remove the account's address when the link was signed for it."""
        user = await self._signed(user_id, signature)
        if user is None or user.email is None:
            return False
        return await self.store.unsubscribe_mail(user.id, user.email, self.now())

    async def _signed(self, user_id: str, signature: str) -> UserRecord | None:
        if len(user_id) > 64 or len(signature) > 128:
            return None
        user = await self.users.get_user(user_id)
        if user is None or user.email is None:
            return None
        if not hmac.compare_digest(signature, self._signature(user.id, user.email)):
            return None
        return user

    # ------------------------------------------------------------------ turn e-mails
    async def your_turn(
        self, user_id: str, name: str, game: str, code: str, deadline: float | None
    ) -> bool:
        """Tell the account it is its move, when its address is confirmed and no cap is
        reached; whether a mail went out."""
        if self.mailer is None:
            return False
        user = await self.users.get_user(user_id)
        if user is None or user.email is None:
            return False
        mail = await self.store.mail_account(user.id)
        if mail is None or mail.verified != user.email:
            return False  # never confirmed, or changed since: nothing goes to it
        caps = [
            (f"account:{user.id}", self.limits.per_account),
            (f"address:{self._digest(user.email)}", self.limits.per_address),
        ]
        if not await self.store.take_mail(caps, self._hour(), self._carried()):
            log.info("no turn e-mail for an account past its hourly cap")
            return False
        unsubscribe = self.unsubscribe_url(user.id, user.email)
        link = f"{self.public_url}/t/{code}"
        subject, body = mail_text.your_turn(
            mail.language, name, game, code, link, deadline, unsubscribe
        )
        return await self.mailer.send(user.email, subject, body, self._list_headers(unsubscribe))

    # ------------------------------------------------------------------ helpers
    def _signature(self, user_id: str, address: str) -> str:
        message = f"unsubscribe\0{user_id}\0{address.lower()}".encode()
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def _digest(self, address: str) -> str:
        """An address as the caps count it: its mailbox (:func:`mailbox_of`), keyed, so the
        counts list no address."""
        message = f"address\0{mailbox_of(address)}".encode()
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()[:32]

    def _hour(self) -> int:
        return int(self.now() // 3600)

    def _carried(self) -> float:
        """The share of the hour before that is still within the last 60 minutes: its mails
        count against the caps in that share (a new clock hour does not give them again)."""
        return 1.0 - (self.now() % 3600) / 3600

    @staticmethod
    def _list_headers(unsubscribe: str) -> dict[str, str]:
        return {
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        }


# Gmail delivers every spelling of a name with dots (``a.nn@``, ``an.n@``) and at either
# domain to one mailbox.
_GMAIL = frozenset({"gmail.com", "googlemail.com"})


def mailbox_of(address: str) -> str:
    """The mailbox an address reaches, as far as it is known: lower-cased, without a ``+tag``
    (most providers deliver ``ann+1@`` and ``ann+2@`` to ``ann@``), and at Gmail without dots
    and at one domain.  Two spellings of one mailbox share its caps."""
    local, _, domain = address.lower().rpartition("@")
    local = local.split("+")[0]
    if domain in _GMAIL:
        local, domain = local.replace(".", ""), "gmail.com"
    return f"{local}@{domain}"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
