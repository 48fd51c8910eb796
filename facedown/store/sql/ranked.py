"""Ranked play on SQL: the queues, ranked matches and ratings.

The writes follow the rule of :mod:`facedown.store.writer`: each refuses (StoreError) only
before it has changed anything.  A match is fenced by the matchmaker's lease (the ``leases``
table) in its own transaction, as a table's writes are by the table's lease.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from ..checks import check_table, json_text
from ..models import QueueRow, RankedMatchRow, RankedSeatRow, RatingRow, UserRow
from ..records import (
    Lease,
    QueueChanged,
    QueueEntry,
    RankedMatchRecord,
    RankedSeat,
    RatingRecord,
    StoreError,
    TableRecord,
)
from .core import SqlBase
from .leases import fenced
from .tables import create_table_row


class RankedSql(SqlBase):
    """The :class:`~facedown.store.base.RankedStore` methods of the SQL store."""

    async def enqueue(self, user_id: str, queue: str, joined_at: float) -> None:
        await self._write(partial(_enqueue, user_id=user_id, queue=queue, joined_at=joined_at))

    async def dequeue(self, user_id: str) -> bool:
        ended: list[int] = []

        def write(connection: Connection) -> None:
            result = connection.execute(delete(QueueRow).where(QueueRow.user_id == user_id))
            ended.append(result.rowcount)

        await self._write(write)
        return sum(ended) > 0

    async def touch_queue(self, user_id: str, seen_at: float) -> None:
        def write(connection: Connection) -> None:
            connection.execute(
                update(QueueRow).where(QueueRow.user_id == user_id).values(seen_at=seen_at)
            )

        await self._write(write)

    async def drop_unseen(self, queue: str, before: float) -> list[str]:
        dropped: list[str] = []

        def write(connection: Connection) -> None:
            unseen = (QueueRow.queue == queue) & (QueueRow.seen_at < before)
            users = list(connection.execute(select(QueueRow.user_id).where(unseen)).scalars())
            if users:
                connection.execute(delete(QueueRow).where(unseen, QueueRow.user_id.in_(users)))
            dropped[:] = users

        await self._write(write)
        return dropped

    async def queue_entry(self, user_id: str) -> QueueEntry | None:
        entries = await self._entries(QueueRow.user_id == user_id)
        return entries[0] if entries else None

    async def queue_entries(self, queue: str) -> list[QueueEntry]:
        return await self._entries(QueueRow.queue == queue)

    async def _entries(self, where: Any) -> list[QueueEntry]:
        query = (
            select(
                QueueRow.user_id,
                QueueRow.queue,
                QueueRow.joined_at,
                QueueRow.seen_at,
                RatingRow.mu,
                RatingRow.sigma,
            )
            .outerjoin(
                RatingRow,
                (RatingRow.user_id == QueueRow.user_id) & (RatingRow.queue == QueueRow.queue),
            )
            .where(where)
            .order_by(QueueRow.joined_at, QueueRow.user_id)
        )
        async with self._session() as session:
            return [QueueEntry(*row) for row in await session.execute(query)]

    async def waiting(self) -> dict[str, int]:
        query = select(QueueRow.queue, func.count()).group_by(QueueRow.queue)
        async with self._session() as session:
            return {queue: int(n) for queue, n in await session.execute(query)}

    async def create_ranked_match(
        self, record: TableRecord, match: RankedMatchRecord, *, lease: Lease | None = None
    ) -> None:
        check_table(record)  # the table is written and fenced as every other table is
        write = partial(_create_match, record=record, match=match)
        await self._write(fenced(lease, write))

    async def ranked_match(self, table_id: str) -> RankedMatchRecord | None:
        found = await self._matches(RankedMatchRow.table_id == table_id)
        return found[0] if found else None

    async def unrated_matches(self, user_id: str | None = None) -> list[RankedMatchRecord]:
        where: Any = RankedMatchRow.rated_at.is_(None)
        if user_id is not None:
            seated = select(RankedSeatRow.table_id).where(RankedSeatRow.user_id == user_id)
            where = where & RankedMatchRow.table_id.in_(seated)
        return await self._matches(where)

    async def rated_matches(
        self, user_id: str, queue: str, since: float
    ) -> list[RankedMatchRecord]:
        seated = select(RankedSeatRow.table_id).where(RankedSeatRow.user_id == user_id)
        where = (
            (RankedMatchRow.queue == queue)
            & (RankedMatchRow.rated_at >= since)
            & RankedMatchRow.table_id.in_(seated)
        )
        return await self._matches(where)

    async def _matches(self, where: Any) -> list[RankedMatchRecord]:
        query = select(RankedMatchRow).where(where).order_by(RankedMatchRow.created_at)
        async with self._session() as session:
            rows = list(await session.scalars(query))
            ids = [row.table_id for row in rows]
            seats: dict[str, list[RankedSeat]] = {i: [] for i in ids}
            if ids:
                seat_query = (
                    select(RankedSeatRow)
                    .where(RankedSeatRow.table_id.in_(ids))
                    .order_by(RankedSeatRow.table_id, RankedSeatRow.seat)
                )
                for seat in await session.scalars(seat_query):
                    seats[seat.table_id].append(RankedSeat(seat.seat, seat.user_id, seat.waited))
            return [
                RankedMatchRecord(
                    table_id=row.table_id,
                    queue=row.queue,
                    created_at=row.created_at,
                    seats=tuple(seats[row.table_id]),
                    rated_at=row.rated_at,
                    result=row.result,
                )
                for row in rows
            ]

    async def rate_match(
        self, table_id: str, at: float, result: dict[str, Any], ratings: Sequence[RatingRecord]
    ) -> bool:
        json_text(result, "the match result")
        done: list[bool] = []
        write = partial(_rate, table_id=table_id, at=at, result=result, ratings=list(ratings))
        await self._write(lambda connection: done.append(write(connection)))
        return done == [True]

    async def ratings_of(self, user_id: str) -> list[RatingRecord]:
        return await self._ratings(RatingRow.user_id == user_id, order=(RatingRow.queue,))

    async def ratings_in(self, queue: str, user_ids: Sequence[str]) -> list[RatingRecord]:
        where = (RatingRow.queue == queue) & RatingRow.user_id.in_(list(user_ids))
        return await self._ratings(where, order=(RatingRow.user_id,))

    async def leaderboard(self, queue: str, limit: int, offset: int = 0) -> list[RatingRecord]:
        order = (RatingRow.score.desc(), RatingRow.matches.desc(), RatingRow.user_id)
        return await self._ratings(RatingRow.queue == queue, order, limit, offset)

    async def _ratings(
        self, where: Any, order: Sequence[Any], limit: int | None = None, offset: int = 0
    ) -> list[RatingRecord]:
        query = (
            select(RatingRow, UserRow.name)
            .join(UserRow, UserRow.id == RatingRow.user_id)
            .where(where)
            .order_by(*order)
            .offset(offset)
        )
        if limit is not None:
            query = query.limit(limit)
        async with self._session() as session:
            return [_rating(row, name) for row, name in await session.execute(query)]

    async def rated_players(self, queue: str) -> int:
        query = select(func.count()).select_from(RatingRow).where(RatingRow.queue == queue)
        async with self._session() as session:
            return int(await session.scalar(query) or 0)

    async def recent_waits(self, queue: str, limit: int) -> list[float]:
        query = (
            select(RankedSeatRow.waited)
            .join(RankedMatchRow, RankedMatchRow.table_id == RankedSeatRow.table_id)
            .where(RankedMatchRow.queue == queue)
            .order_by(RankedMatchRow.created_at.desc(), RankedSeatRow.seat)
            .limit(limit)
        )
        async with self._session() as session:
            return [float(w) for w in await session.scalars(query)]


def _enqueue(connection: Connection, user_id: str, queue: str, joined_at: float) -> None:
    found = connection.execute(select(UserRow.id).where(UserRow.id == user_id)).first()
    if found is None:
        raise StoreError(f"no account {user_id!r}")
    moved = connection.execute(
        update(QueueRow)
        .where(QueueRow.user_id == user_id, QueueRow.queue != queue)
        .values(queue=queue, joined_at=joined_at, seen_at=joined_at)
    )
    if moved.rowcount:
        return
    statement: Any
    if connection.dialect.name == "postgresql":
        statement = postgresql.insert(QueueRow).on_conflict_do_nothing()
    else:
        statement = sqlite.insert(QueueRow).on_conflict_do_nothing()
    # Already waiting in this queue: the row stays as it was, and so does the place.
    row = {"user_id": user_id, "queue": queue, "joined_at": joined_at, "seen_at": joined_at}
    connection.execute(statement, row)


def _create_match(
    connection: Connection,
    record: TableRecord,
    match: RankedMatchRecord,
) -> None:
    users = list(dict.fromkeys(seat.user_id for seat in match.seats))
    # An update that changes nothing counts the players still waiting, and takes the lock
    # (SQLite's write lock, PostgreSQL's row locks): no one leaves between the count and the
    # delete below, so the refusal comes before anything has changed.
    held = connection.execute(
        update(QueueRow)
        .where(QueueRow.user_id.in_(users), QueueRow.queue == match.queue)
        .values(joined_at=QueueRow.joined_at)
    )
    if held.rowcount != len(users):
        raise QueueChanged(f"not every player still waits in queue {match.queue!r}")
    # The table's row and seats: refuses (TableExists) before it has written anything.
    create_table_row(connection, record)
    connection.execute(
        delete(QueueRow).where(QueueRow.user_id.in_(users), QueueRow.queue == match.queue)
    )
    connection.execute(
        insert(RankedMatchRow).values(
            table_id=match.table_id,
            queue=match.queue,
            created_at=match.created_at,
            rated_at=None,
            result=None,
        )
    )
    connection.execute(
        insert(RankedSeatRow),
        [
            {"table_id": match.table_id, "seat": s.seat, "user_id": s.user_id, "waited": s.waited}
            for s in match.seats
        ],
    )


def _rate(
    connection: Connection,
    table_id: str,
    at: float,
    result: dict[str, Any],
    ratings: list[RatingRecord],
) -> bool:
    marked = connection.execute(
        update(RankedMatchRow)
        .where(RankedMatchRow.table_id == table_id, RankedMatchRow.rated_at.is_(None))
        .values(rated_at=at, result=result)
    )
    if not marked.rowcount:
        return False  # rated already (by this process or another): nothing more is written
    for rating in ratings:
        fields = {
            "mu": rating.mu,
            "sigma": rating.sigma,
            "score": rating.score,
            "matches": rating.matches,
            "updated_at": rating.updated_at,
        }
        changed = connection.execute(
            update(RatingRow)
            .where(RatingRow.user_id == rating.user_id, RatingRow.queue == rating.queue)
            .values(**fields)
        )
        if not changed.rowcount:
            connection.execute(
                insert(RatingRow).values(user_id=rating.user_id, queue=rating.queue, **fields)
            )
    return True


def _rating(row: RatingRow, name: str) -> RatingRecord:
    return RatingRecord(
        user_id=row.user_id,
        queue=row.queue,
        mu=row.mu,
        sigma=row.sigma,
        score=row.score,
        matches=row.matches,
        updated_at=row.updated_at,
        name=name,
    )
