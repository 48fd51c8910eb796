"""Scoreboards on SQL: the boards of paper games, edited against the revision an edit was
based on (:class:`~facedown.store.records.RevisionConflict` when another device changed it).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from sqlalchemy import ColumnElement, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..checks import check_scoreboard
from ..database import integrity_kind
from ..models import ScoreboardRow
from ..records import RevisionConflict, ScoreboardRecord, StoreError, TableExists
from .core import SqlBase


class ScoreboardsSql(SqlBase):
    """The :class:`~facedown.store.base.ScoreboardStore` methods of the SQL store."""

    async def create_scoreboard(self, record: ScoreboardRecord) -> None:
        check_scoreboard(record)
        await self._write(partial(_create_scoreboard, record=record))

    async def get_scoreboard(self, board_id: str) -> ScoreboardRecord | None:
        return await self._board(ScoreboardRow.id == board_id)

    async def find_scoreboard(self, view_key: str) -> ScoreboardRecord | None:
        return await self._board(ScoreboardRow.view_key == view_key)

    async def update_scoreboard(self, record: ScoreboardRecord, base: int) -> None:
        check_scoreboard(record)
        await self._write(partial(_update_scoreboard, record=record, base=base))

    async def _board(self, where: ColumnElement[bool]) -> ScoreboardRecord | None:
        async with self._session() as session:
            row = await session.scalar(select(ScoreboardRow).where(where))
            return None if row is None else _board_record(row)


def _create_scoreboard(connection: Connection, record: ScoreboardRecord) -> None:
    try:
        connection.execute(
            insert(ScoreboardRow).values(
                id=record.id,
                view_key=record.view_key,
                preset=record.preset,
                options=record.options,
                placement=record.placement,
                created_at=record.created_at,
                **_board_fields(record),
            )
        )
    except IntegrityError as e:
        if integrity_kind(e) != "unique":
            raise
        raise TableExists("a scoreboard with this id or view key already exists") from None


def _update_scoreboard(connection: Connection, record: ScoreboardRecord, base: int) -> None:
    result = connection.execute(
        update(ScoreboardRow)
        .where(ScoreboardRow.id == record.id, ScoreboardRow.revision == base)
        .values(**_board_fields(record))
    )
    if result.rowcount == 0:
        found = connection.execute(
            select(ScoreboardRow.revision).where(ScoreboardRow.id == record.id)
        ).scalar()
        if found is None:
            raise StoreError("no such scoreboard")
        raise RevisionConflict(f"the scoreboard is at revision {found}, not {base}")


def _board_fields(record: ScoreboardRecord) -> dict[str, Any]:
    """What an edit may change: names, rounds and the revision."""
    return {
        "names": list(record.names),
        "rounds": list(record.rounds),
        "revision": record.revision,
        "updated_at": record.updated_at,
    }


def _board_record(row: ScoreboardRow) -> ScoreboardRecord:
    return ScoreboardRecord(
        id=row.id,
        view_key=row.view_key,
        names=tuple(row.names),
        preset=row.preset,
        options=row.options,
        placement=row.placement,
        rounds=tuple(row.rounds),
        revision=row.revision,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )
