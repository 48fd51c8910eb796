"""Tables' logs on SQL: the append of a log entry (alone, fenced by a lease, or with the
table's update in one transaction) and the read of a log.

The append is the store's hot path.  On SQLite it runs as the driver's own statement in the
writer's transaction; on PostgreSQL a fenced append checks the lease and appends in one
statement.  A write refuses only before it has changed anything (:mod:`facedown.store.writer`).
"""

from __future__ import annotations

import sqlite3
from functools import partial
from typing import cast

from sqlalchemy import Text, bindparam, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..checks import check_entry, check_table
from ..database import integrity_kind
from ..models import LogRow
from ..records import Lease, LogEntry, SequenceConflict, StoreError, TableRecord
from .core import BeforeCommit, SqlBase, no_hook
from .leases import fenced, lease_lost
from .tables import update_table_row


class LogsSql(SqlBase):
    """The log methods of :class:`~facedown.store.base.Store` on SQL."""

    async def append(self, table_id: str, entry: LogEntry, *, lease: Lease | None = None) -> None:
        payload = check_entry(entry)
        if lease is None and self._writer is not None:  # SQLite's hot path: the driver's own
            write = partial(
                _sqlite_append,
                table_id=table_id,
                entry=entry,
                payload=payload,
                hook=self._before_commit,
            )
            await self._write(write)
            return
        if lease is not None and self._writer is None:  # PostgreSQL: one round trip
            one_trip = partial(
                _fenced_append,
                table_id=table_id,
                entry=entry,
                payload=payload,
                lease=lease,
                hook=self._before_commit,
            )
            await self._write(one_trip)
            return
        write = partial(
            _append, table_id=table_id, entry=entry, payload=payload, hook=self._before_commit
        )
        await self._write(fenced(lease, write))

    async def append_and_update(
        self, record: TableRecord, entry: LogEntry, *, lease: Lease | None = None
    ) -> None:
        payload = check_entry(entry)
        texts = check_table(record)
        write = partial(
            _append_and_update,
            record=record,
            texts=texts,
            entry=entry,
            payload=payload,
            hook=self._before_commit,
        )
        await self._write(fenced(lease, write))

    async def log(self, table_id: str, after: int = 0) -> list[LogEntry]:
        # Columns, not ORM objects: a restart replays every log, so this read is the bulk one.
        query = (
            select(LogRow.seq, LogRow.kind, LogRow.payload, LogRow.created_at)
            .where(LogRow.table_id == table_id, LogRow.seq > after)
            .order_by(LogRow.seq)
        )
        async with self._session() as session:
            rows = await session.execute(query)
            return [LogEntry(*row) for row in rows]


# A cluster's hot path on PostgreSQL: the fence check and the append in one statement (a
# data-modifying WITH runs, and locks the lease's row, whether or not the INSERT finds a row).
# The payload is bound as the JSON text check_entry made (a JSON column would encode the
# entry again); PostgreSQL's json type keeps the text as given, so the rows are as before.
_FENCED_APPEND = text(
    "WITH held AS (UPDATE leases SET fence = fence"
    " WHERE name = :lease_name AND owner = :lease_owner AND fence = :lease_fence RETURNING 1)"
    " INSERT INTO table_log (table_id, seq, kind, payload, created_at)"
    " SELECT :table_id, :seq, :kind, CAST(:payload AS JSON), :created_at"
    " WHERE EXISTS (SELECT 1 FROM held)"
).bindparams(bindparam("payload", type_=Text))


def _fenced_append(
    connection: Connection,
    table_id: str,
    entry: LogEntry,
    payload: str,
    lease: Lease,
    hook: BeforeCommit,
) -> None:
    params = {
        "lease_name": lease.name,
        "lease_owner": lease.owner,
        "lease_fence": lease.fence,
        "table_id": table_id,
        "seq": entry.seq,
        "kind": entry.kind,
        "payload": payload,
        "created_at": entry.created_at,
    }
    try:
        inserted = connection.execute(_FENCED_APPEND, params)
    except IntegrityError as e:
        refused = _append_refused(integrity_kind(e), table_id, entry.seq)
        if refused is None:
            raise
        raise refused from None
    if inserted.rowcount != 1:
        raise lease_lost(lease)
    hook(table_id, entry.seq)


def _append_refused(kind: str | None, table_id: str, seq: int) -> StoreError | None:
    """The store's error for an append the database refused (``kind``, as ``integrity_kind``
    names it): the seq is taken, or there is no such table; None for any other refusal,
    which is raised as it came."""
    if kind == "unique":
        return SequenceConflict(f"table {table_id!r} already has log entry {seq}")
    if kind == "foreign_key":
        return StoreError(f"no table {table_id!r}")
    return None


# SQLite's extended error names of a refused insert, as ``integrity_kind`` names them.
_SQLITE_KINDS = {
    "SQLITE_CONSTRAINT_PRIMARYKEY": "unique",
    "SQLITE_CONSTRAINT_UNIQUE": "unique",
    "SQLITE_CONSTRAINT_FOREIGNKEY": "foreign_key",
}


# The append on PostgreSQL, the payload as the JSON text check_entry made (as _FENCED_APPEND).
_INSERT_LOG = text(
    "INSERT INTO table_log (table_id, seq, kind, payload, created_at)"
    " VALUES (:table_id, :seq, :kind, CAST(:payload AS JSON), :created_at)"
).bindparams(bindparam("payload", type_=Text))


def _append(
    connection: Connection,
    table_id: str,
    entry: LogEntry,
    payload: str,
    hook: BeforeCommit = no_hook,
) -> None:
    if connection.dialect.name == "sqlite":  # the writer's connection: the driver's own
        _sqlite_append(connection, table_id, entry, payload, hook)
        return
    try:
        connection.execute(
            _INSERT_LOG,
            {
                "table_id": table_id,
                "seq": entry.seq,
                "kind": entry.kind,
                "payload": payload,
                "created_at": entry.created_at,
            },
        )
    except IntegrityError as e:
        refused = _append_refused(integrity_kind(e), table_id, entry.seq)
        if refused is None:
            raise
        raise refused from None
    hook(table_id, entry.seq)


# The append on SQLite, as the driver's own statement in the writer's transaction: SQLAlchemy's
# statement cache, bind processing and result objects cost more than SQLite's own work there.
# The payload is the JSON text the entry was checked with (json.dumps, as the JSON column writes).
_SQLITE_INSERT_LOG = (
    "INSERT INTO table_log (table_id, seq, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)"
)


def _sqlite_append(
    connection: Connection,
    table_id: str,
    entry: LogEntry,
    payload: str,
    hook: BeforeCommit = no_hook,
) -> None:
    driver = cast(sqlite3.Connection, connection.connection.driver_connection)
    row = (table_id, entry.seq, entry.kind, payload, entry.created_at)
    try:
        driver.execute(_SQLITE_INSERT_LOG, row)
    except sqlite3.IntegrityError as e:
        kind = _SQLITE_KINDS.get(getattr(e, "sqlite_errorname", None) or "")
        refused = _append_refused(kind, table_id, entry.seq)
        if refused is None:
            raise
        raise refused from None
    hook(table_id, entry.seq)


def _append_and_update(
    connection: Connection,
    record: TableRecord,
    texts: tuple[str, str],
    entry: LogEntry,
    payload: str,
    hook: BeforeCommit,
) -> None:
    # The append first: it refuses (taken seq, no table) before anything has changed, as the
    # group commit requires; once it is in, the table exists and the update cannot refuse.
    _append(connection, record.id, entry, payload)
    update_table_row(connection, record, texts)
    hook(record.id, entry.seq)
