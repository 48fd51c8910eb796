"""What turn e-mails need, in memory (mixed into :class:`~facedown.store.memory.MemoryStore`):
the same contract as :mod:`.sql.mail`, in dicts, every method atomic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .base import mail_room
from .records import MailAccount, StoreError, UserRecord


class MailMemory:
    """The :class:`~facedown.store.base.MailStore` methods of the memory store."""

    # Provided by MemoryStore.
    _users: dict[str, UserRecord]

    def _check_open(self) -> None:
        raise NotImplementedError

    def __init__(self) -> None:
        super().__init__()
        self._mail: dict[str, MailAccount] = {}  # user id -> its mail settings
        self._mail_counts: dict[tuple[str, int], int] = {}  # (key, hour) -> mail sent

    async def mail_account(self, user_id: str) -> MailAccount | None:
        self._check_open()
        return self._mail.get(user_id)

    async def save_mail_account(self, record: MailAccount) -> None:
        self._check_open()
        if record.user_id not in self._users:
            raise StoreError(f"no account {record.user_id!r}")
        if record.token_hash is not None and any(
            m.token_hash == record.token_hash and m.user_id != record.user_id
            for m in self._mail.values()
        ):
            raise StoreError("a confirmation with this token already exists")
        self._mail[record.user_id] = record

    async def confirm_mail(self, token_hash: str, at: float) -> MailAccount | None:
        self._check_open()
        record = next((m for m in self._mail.values() if m.token_hash == token_hash), None)
        if record is None:
            return None
        user = self._users.get(record.user_id)
        live = record.token_expires is not None and record.token_expires > at
        still = user is not None and user.email == record.pending
        verified = record.pending if live and still else record.verified
        self._mail[record.user_id] = replace(
            record, verified=verified, pending=None, token_hash=None, token_expires=None
        )
        return record

    async def unsubscribe_mail(self, user_id: str, address: str, at: float) -> bool:
        self._check_open()
        user = self._users.get(user_id)
        if user is None or user.email != address:
            return False
        self._users[user_id] = replace(user, email=None, updated_at=at)
        record = self._mail.get(user_id)
        if record is not None:  # the mailbox said no: every confirmation of the account goes
            self._mail[user_id] = replace(
                record, verified=None, pending=None, token_hash=None, token_expires=None
            )
        return True

    async def take_mail(
        self, caps: Sequence[tuple[str, int]], hour: int, carried: float = 0.0
    ) -> bool:
        self._check_open()
        counts = self._mail_counts
        if any(
            counts.get((key, hour), 0) >= mail_room(cap, counts.get((key, hour - 1), 0), carried)
            for key, cap in caps
        ):
            return False
        for old in [k for k in counts if k[1] < hour - 1]:
            del self._mail_counts[old]
        for key, _ in caps:
            self._mail_counts[key, hour] = self._mail_counts.get((key, hour), 0) + 1
        return True
