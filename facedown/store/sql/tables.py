"""Tables on SQL: a table's record and seats, the tables the server lists, and the guests'
token floors.

The writes follow the rule of :mod:`facedown.store.writer`: each refuses (StoreError) only
before it has changed anything, as the group commit requires (its neighbours in the transaction
are committed regardless).  A table's update on SQLite runs as the driver's own statements, the
store's hot path with the log's append (:mod:`.logs`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import partial
from typing import Any, cast

from sqlalchemy import ColumnElement, bindparam, case, delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from ..checks import check_floor, check_table, json_text
from ..database import integrity_kind
from ..models import SeatRow, TableRow, TokenFloorRow
from ..records import (
    ACTIVE_STATUSES,
    Lease,
    SeatKind,
    SeatRecord,
    StoreError,
    TableExists,
    TableRecord,
    TableStatus,
)
from .core import SqlBase
from .leases import fenced


class TablesSql(SqlBase):
    """The table methods of :class:`~facedown.store.base.Store` on SQL."""

    async def create_table(self, record: TableRecord) -> None:
        texts = check_table(record)
        await self._write(partial(create_table_row, record=record, texts=texts))

    async def get_table(self, table_id: str) -> TableRecord | None:
        return await self._one(TableRow.id == table_id)

    async def find_by_code(self, code: str) -> TableRecord | None:
        return await self._one(TableRow.code == code.upper())

    async def update_table(self, record: TableRecord, *, lease: Lease | None = None) -> None:
        texts = check_table(record)
        await self._write(fenced(lease, partial(update_table_row, record=record, texts=texts)))

    async def update_settings(
        self, table_id: str, settings: dict[str, Any], *, lease: Lease | None = None
    ) -> None:
        text = json_text(settings, "settings")
        write = partial(update_settings_row, table_id=table_id, settings=settings, text=text)
        await self._write(fenced(lease, write))

    async def active_tables(self) -> list[TableRecord]:
        return await self._with_status(ACTIVE_STATUSES)

    async def broken_tables(self) -> list[TableRecord]:
        return await self._with_status(("broken",))

    async def _with_status(self, statuses: tuple[TableStatus, ...]) -> list[TableRecord]:
        query = (
            select(TableRow)
            .where(TableRow.status.in_(statuses))
            .order_by(TableRow.created_at, TableRow.id)
            .options(selectinload(TableRow.seats))
        )
        async with self._session() as session:
            return [_table_record(row) for row in await session.scalars(query)]

    async def player_tables(self, player_ids: Sequence[str], limit: int) -> list[TableRecord]:
        if not player_ids or limit <= 0:
            return []
        seated = select(SeatRow.table_id).where(SeatRow.player_id.in_(list(player_ids)))
        query = (
            select(TableRow)
            .where(TableRow.id.in_(seated))
            .order_by(TableRow.updated_at.desc(), TableRow.id)
            .limit(limit)
            .options(selectinload(TableRow.seats))
        )
        async with self._session() as session:
            return [_table_record(row) for row in await session.scalars(query)]

    async def token_floors(self) -> dict[str, int]:
        query = select(TokenFloorRow.player_id, TokenFloorRow.valid_from)
        async with self._session() as session:
            return {player: floor for player, floor in await session.execute(query)}

    async def set_token_floor(self, player_id: str, valid_from: int) -> None:
        check_floor(player_id, valid_from)
        await self._write(partial(_set_token_floor, player_id=player_id, valid_from=valid_from))

    async def _one(self, where: ColumnElement[bool]) -> TableRecord | None:
        query = select(TableRow).where(where).options(selectinload(TableRow.seats))
        async with self._session() as session:
            row = await session.scalar(query)
            return None if row is None else _table_record(row)


def create_table_row(
    connection: Connection, record: TableRecord, texts: tuple[str, str] | None = None
) -> None:
    """Insert a new table's row and seats (also the table of a ranked match, :mod:`.ranked`);
    TableExists, before anything is written, when its id or code is taken.  ``texts``: its
    rules' and settings' JSON as check_table made them (made here when not given)."""
    if connection.dialect.name == "sqlite":  # the writer's connection: the driver's own
        _sqlite_create_table(connection, record, texts or check_table(record))
        return
    try:
        connection.execute(
            insert(TableRow).values(
                id=record.id,
                code=record.code.upper(),
                created_at=record.created_at,
                **_mutable_fields(record),
            )
        )
    except IntegrityError as e:
        if integrity_kind(e) != "unique":
            raise
        taken = "code" if "code" in str(e.orig) else "id"
        value = record.code.upper() if taken == "code" else record.id
        raise TableExists(f"a table with {taken} {value!r} already exists") from None
    _insert_seats(connection, record)


_MUTABLE = (
    "preset",
    "rules",
    "seed",
    "host_id",
    "settings",
    "status",
    "deadline",
    "deadline_kind",
    "updated_at",
    "damage",
)
# Built once (bound parameters, one cached compile): a table's record changes at every start and
# end of a match, and a statement built anew costs more in SQLAlchemy than in the database.
_UPDATE_TABLE = (
    update(TableRow)
    .where(TableRow.id == bindparam("record_id"))
    .values(
        {name: bindparam(f"new_{name}", type_=TableRow.__table__.c[name].type) for name in _MUTABLE}
    )
)
_SEATS_OF = (
    select(SeatRow.seat, SeatRow.kind, SeatRow.name, SeatRow.player_id, SeatRow.bot_level)
    .where(SeatRow.table_id == bindparam("record_id"))
    .order_by(SeatRow.seat)
)
_DELETE_SEATS = delete(SeatRow).where(SeatRow.table_id == bindparam("record_id"))


def update_table_row(connection: Connection, record: TableRecord, texts: tuple[str, str]) -> None:
    """Change a table's row to ``record`` (and its seats, when they changed); ``texts`` are its
    rules' and settings' JSON as check_table made them."""
    if connection.dialect.name == "sqlite":  # the writer's connection: the driver's own
        _sqlite_update_table(connection, record, texts)
        return
    _core_update_table(connection, record)


def _core_update_table(connection: Connection, record: TableRecord) -> None:
    # Write first: the UPDATE locks the table's row and tells whether the table exists.
    fields = _mutable_fields(record)
    result = connection.execute(
        _UPDATE_TABLE, {"record_id": record.id, **{f"new_{k}": v for k, v in fields.items()}}
    )
    if result.rowcount == 0:
        raise StoreError(f"no table {record.id!r}")
    # Most updates leave the seats as they were (a status, a deadline): then they stay.
    seats = sorted((s.seat, s.kind, s.name, s.player_id, s.bot_level) for s in record.seats)
    held = [tuple(row) for row in connection.execute(_SEATS_OF, {"record_id": record.id})]
    if held == seats:
        return
    connection.execute(_DELETE_SEATS, {"record_id": record.id})
    _insert_seats(connection, record)


# A table's update on SQLite, as the driver's own statements (every start and end of a match
# runs it): the same rows as _core_update_table, whose SQLAlchemy statement, bind processors and
# result objects cost the writer several times what SQLite's own work does.  ``texts`` are the
# rules' and settings' JSON as check_table made them (json.dumps, as the JSON columns write).
_SQLITE_UPDATE_TABLE = (
    "UPDATE tables SET preset = ?, rules = ?, seed = ?, host_id = ?, settings = ?, status = ?,"
    " deadline = ?, deadline_kind = ?, updated_at = ?, damage = ? WHERE id = ?"
)
_SQLITE_SEATS_OF = (
    "SELECT seat, kind, name, player_id, bot_level FROM seats WHERE table_id = ? ORDER BY seat"
)
_SQLITE_DELETE_SEATS = "DELETE FROM seats WHERE table_id = ?"
_SQLITE_INSERT_SEAT = (
    "INSERT INTO seats (table_id, seat, kind, name, player_id, bot_level) VALUES (?, ?, ?, ?, ?, ?)"
)


# A new table on SQLite, likewise (every table created runs it).
_SQLITE_INSERT_TABLE = (
    "INSERT INTO tables (id, code, created_at, preset, rules, seed, host_id, settings, status,"
    " deadline, deadline_kind, updated_at, damage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _sqlite_values(record: TableRecord, texts: tuple[str, str]) -> list[Any]:
    """The record's ``_MUTABLE`` fields, in that order (as the statements above name them), as
    the columns store them."""
    rules, settings = texts
    fields = _mutable_fields(record)
    fields["rules"], fields["settings"] = rules, settings
    # As the Float columns do: a time given as another kind of number is stored as a float.
    fields["updated_at"] = float(record.updated_at)
    fields["seed"] = str(record.seed)  # as SeedText writes it: decimal text
    if record.deadline is not None:
        fields["deadline"] = float(record.deadline)
    return [fields[name] for name in _MUTABLE]


def _sqlite_create_table(
    connection: Connection, record: TableRecord, texts: tuple[str, str]
) -> None:
    driver = cast(sqlite3.Connection, connection.connection.driver_connection)
    code = record.code.upper()
    row = (record.id, code, float(record.created_at), *_sqlite_values(record, texts))
    try:
        driver.execute(_SQLITE_INSERT_TABLE, row)
    except sqlite3.IntegrityError as e:
        if e.sqlite_errorname not in ("SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"):
            raise
        taken = "code" if "code" in str(e) else "id"
        value = code if taken == "code" else record.id
        raise TableExists(f"a table with {taken} {value!r} already exists") from None
    seats = [(s.seat, s.kind, s.name, s.player_id, s.bot_level) for s in record.seats]
    driver.executemany(_SQLITE_INSERT_SEAT, [(record.id, *seat) for seat in seats])


def _sqlite_update_table(
    connection: Connection, record: TableRecord, texts: tuple[str, str]
) -> None:
    driver = cast(sqlite3.Connection, connection.connection.driver_connection)
    values = _sqlite_values(record, texts)
    changed = driver.execute(_SQLITE_UPDATE_TABLE, (*values, record.id)).rowcount
    if changed == 0:
        raise StoreError(f"no table {record.id!r}")
    seats = sorted((s.seat, s.kind, s.name, s.player_id, s.bot_level) for s in record.seats)
    if driver.execute(_SQLITE_SEATS_OF, (record.id,)).fetchall() == seats:
        return
    driver.execute(_SQLITE_DELETE_SEATS, (record.id,))
    driver.executemany(_SQLITE_INSERT_SEAT, [(record.id, *seat) for seat in seats])


# A table's settings alone (Store.update_settings): one column of its row.
_UPDATE_SETTINGS = (
    update(TableRow)
    .where(TableRow.id == bindparam("record_id"))
    .values(settings=bindparam("new_settings", type_=TableRow.__table__.c.settings.type))
)
_SQLITE_UPDATE_SETTINGS = "UPDATE tables SET settings = ? WHERE id = ?"


def update_settings_row(
    connection: Connection, table_id: str, settings: dict[str, Any], text: str
) -> None:
    """Change a table's settings and nothing else; ``text`` is their JSON as json_text made it
    (what SQLite's column stores)."""
    if connection.dialect.name == "sqlite":  # the writer's connection: the driver's own
        driver = cast(sqlite3.Connection, connection.connection.driver_connection)
        changed = driver.execute(_SQLITE_UPDATE_SETTINGS, (text, table_id)).rowcount
    else:
        result = connection.execute(
            _UPDATE_SETTINGS, {"record_id": table_id, "new_settings": settings}
        )
        changed = result.rowcount
    if changed == 0:
        raise StoreError(f"no table {table_id!r}")


def _set_token_floor(connection: Connection, player_id: str, valid_from: int) -> None:
    # An update that only raises the floor, else an insert: no upsert dialect needed, and the
    # writes of one table of guests are never concurrent (the writer, or one PG transaction).
    raised = connection.execute(
        update(TokenFloorRow)
        .where(TokenFloorRow.player_id == player_id)
        .values(
            valid_from=case(
                (TokenFloorRow.valid_from < valid_from, valid_from),
                else_=TokenFloorRow.valid_from,
            )
        )
    )
    if raised.rowcount == 0:
        connection.execute(insert(TokenFloorRow).values(player_id=player_id, valid_from=valid_from))


def _mutable_fields(record: TableRecord) -> dict[str, Any]:
    return {
        "preset": record.preset,
        "rules": record.rules,
        "seed": record.seed,
        "host_id": record.host_id,
        "settings": record.settings,
        "status": record.status,
        "deadline": record.deadline,
        "deadline_kind": record.deadline_kind,
        "updated_at": record.updated_at,
        "damage": record.damage,
    }


def _insert_seats(connection: Connection, record: TableRecord) -> None:
    if record.seats:
        connection.execute(
            insert(SeatRow),
            [
                {
                    "table_id": record.id,
                    "seat": seat.seat,
                    "kind": seat.kind,
                    "name": seat.name,
                    "player_id": seat.player_id,
                    "bot_level": seat.bot_level,
                }
                for seat in record.seats
            ],
        )


def _table_record(row: TableRow) -> TableRecord:
    return TableRecord(
        id=row.id,
        code=row.code,
        preset=row.preset,
        rules=row.rules,
        seed=row.seed,
        host_id=row.host_id,
        settings=row.settings,
        status=cast(TableStatus, row.status),
        seats=tuple(
            SeatRecord(
                seat=seat.seat,
                kind=cast(SeatKind, seat.kind),
                name=seat.name,
                player_id=seat.player_id,
                bot_level=seat.bot_level,
            )
            for seat in row.seats
        ),
        deadline=row.deadline,
        deadline_kind=row.deadline_kind,
        created_at=row.created_at,
        updated_at=row.updated_at,
        damage=row.damage,
    )
