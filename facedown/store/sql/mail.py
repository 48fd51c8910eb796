"""What turn e-mails need, on SQL: the accounts' mail settings and confirmations, and the hourly
counts of mail sent.

Each write follows the rule of :mod:`facedown.store.writer` (it refuses only before it has
changed anything).
A count is taken with the dialect's ``INSERT ... ON CONFLICT DO UPDATE ... WHERE sent < cap``
(SQLite and PostgreSQL both have it): two processes counting at once against one key never pass
its cap, and one that loses such a race counts nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from ..base import mail_room
from ..models import MailAccountRow, MailCountRow, UserRow
from ..records import MailAccount, StoreError
from .core import SqlBase


class MailSql(SqlBase):
    """The :class:`~facedown.store.base.MailStore` methods of the SQL store."""

    async def mail_account(self, user_id: str) -> MailAccount | None:
        async with self._session() as session:
            row = await session.get(MailAccountRow, user_id)
            return None if row is None else _record(row)

    async def save_mail_account(self, record: MailAccount) -> None:
        await self._write(partial(_save, record=record))

    async def confirm_mail(self, token_hash: str, at: float) -> MailAccount | None:
        query = select(MailAccountRow.user_id).where(MailAccountRow.token_hash == token_hash)
        async with self._session() as session:
            if await session.scalar(query) is None:  # a made-up token costs no write
                return None
        found: list[MailAccount] = []

        def write(connection: Connection) -> None:
            row = connection.execute(
                select(MailAccountRow).where(MailAccountRow.token_hash == token_hash)
            ).first()
            if row is None:
                return
            record = _record(row)
            current = connection.execute(
                select(UserRow.email).where(UserRow.id == record.user_id)
            ).scalar()
            live = record.token_expires is not None and record.token_expires > at
            verified = record.pending if live and current == record.pending else record.verified
            used = connection.execute(
                update(MailAccountRow)
                .where(
                    MailAccountRow.user_id == record.user_id,
                    MailAccountRow.token_hash == token_hash,
                )
                .values(verified=verified, pending=None, token_hash=None, token_expires=None)
            )
            if used.rowcount == 1:  # a second use at the same moment finds nothing to clear
                found.append(record)

        await self._write(write)
        return found[0] if found else None

    async def unsubscribe_mail(self, user_id: str, address: str, at: float) -> bool:
        done: list[int] = []

        def write(connection: Connection) -> None:
            result = connection.execute(
                update(UserRow)
                .where(UserRow.id == user_id, UserRow.email == address)
                .values(email=None, updated_at=at)
            )
            done.append(result.rowcount)
            if not result.rowcount:
                return
            # The mailbox said no: every confirmation of the account goes, made or on its way.
            connection.execute(
                update(MailAccountRow)
                .where(MailAccountRow.user_id == user_id)
                .values(verified=None, pending=None, token_hash=None, token_expires=None)
            )

        await self._write(write)
        return sum(done) > 0

    async def take_mail(
        self, caps: Sequence[tuple[str, int]], hour: int, carried: float = 0.0
    ) -> bool:
        taken: list[bool] = []
        await self._write(partial(_take, caps=caps, hour=hour, carried=carried, taken=taken))
        return bool(taken) and all(taken)


def _record(row: Any) -> MailAccount:
    return MailAccount(
        user_id=row.user_id,
        language=row.language,
        verified=row.verified,
        pending=row.pending,
        token_hash=row.token_hash,
        token_expires=row.token_expires,
    )


def _insert(connection: Connection, table: Any) -> Any:
    if connection.dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


def _save(connection: Connection, record: MailAccount) -> None:
    if connection.execute(select(UserRow.id).where(UserRow.id == record.user_id)).first() is None:
        raise StoreError(f"no account {record.user_id!r}")
    fields = {
        "language": record.language,
        "verified": record.verified,
        "pending": record.pending,
        "token_hash": record.token_hash,
        "token_expires": record.token_expires,
    }
    statement = _insert(connection, MailAccountRow).values(user_id=record.user_id, **fields)
    connection.execute(
        statement.on_conflict_do_update(index_elements=[MailAccountRow.user_id], set_=fields)
    )


def _take(
    connection: Connection,
    caps: Sequence[tuple[str, int]],
    hour: int,
    carried: float,
    taken: list[bool],
) -> None:
    keys = [key for key, _ in caps]
    rows = connection.execute(
        select(MailCountRow.key, MailCountRow.hour, MailCountRow.sent).where(
            MailCountRow.key.in_(keys), MailCountRow.hour.in_([hour - 1, hour])
        )
    ).all()
    counts = {(key, at): sent for key, at, sent in rows}
    # What each key may still have this hour: its cap less what still counts of the hour before
    # (a past hour no longer changes, so it is read once).
    room = [(key, mail_room(cap, counts.get((key, hour - 1), 0), carried)) for key, cap in caps]
    if any(counts.get((key, hour), 0) >= cap for key, cap in room):
        taken.append(False)
        return
    for key, cap in room:
        statement = _insert(connection, MailCountRow).values(key=key, hour=hour, sent=1)
        counted = connection.execute(
            statement.on_conflict_do_update(
                index_elements=[MailCountRow.key, MailCountRow.hour],
                set_={"sent": MailCountRow.sent + 1},
                where=MailCountRow.sent < cap,
            )
        )
        taken.append(counted.rowcount == 1)
        if not taken[-1]:  # another process took the last one meanwhile
            return
    # The counts of the hours before the last count for nothing: the table holds about two
    # hours' keys.
    connection.execute(delete(MailCountRow).where(MailCountRow.hour < hour - 1))
