"""The store on SQLAlchemy 2 (async): SQLite in a file by default, PostgreSQL by URL.

Writes are Core statements in short transactions: on PostgreSQL one transaction per write, on
SQLite the writes waiting at a moment share one (group commit, see :mod:`.writer`).  Every write
returns only once committed.  Reads go through the ORM for typed rows.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Float,
    Text,
    bindparam,
    case,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
    text,
    update,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.orm import selectinload

from . import sql_accounts as accounts
from .base import (
    ACTIVE_STATUSES,
    TABLE_LEASE,
    Lease,
    LeaseBusy,
    LeaseLost,
    LogEntry,
    RevisionConflict,
    ScoreboardRecord,
    SeatKind,
    SeatRecord,
    SequenceConflict,
    SessionRecord,
    StoreError,
    TableExists,
    TableRecord,
    TableStatus,
    UserRecord,
)
from .checks import check_entry, check_floor, check_scoreboard, check_table
from .commits import CommitMarks, marks_path
from .database import (
    database_errors,
    integrity_kind,
    make_engine,
    make_sqlite_writer_engine,
    shown,
    sqlite_file,
)
from .migrate import upgrade_engine
from .models import (
    LeaseRow,
    LogRow,
    MetaRow,
    ScoreboardRow,
    SeatRow,
    SessionRow,
    TableRow,
    TokenFloorRow,
    UserPlayerRow,
    UserRow,
)
from .sql_mail import MailSql
from .sql_ranked import RankedSql
from .writer import GroupCommit, Write

# Called inside the transaction of a log write, after its statements and before its commit,
# with the table id and the entry's seq (a test hook: server/base/crashhook.py).
BeforeCommit = Callable[[str, int], None]


CLUSTER_KEY = "cluster"  # store_meta: the cluster's id (Store.cluster_id)


def _nothing(_table_id: str, _seq: int) -> None:
    return None


async def open_store(url: str, *, before_commit: BeforeCommit | None = None) -> SqlStore:
    """Open the database at ``url``, migrated to the newest schema first.

    ``url`` is ``sqlite:///path/to/facedown.db`` (the folder is created) or
    ``postgresql://user:password@host:port/database``; the async drivers are filled in.
    Raise StoreError when the database cannot be reached or migrated.  ``before_commit`` is
    for tests only (see :data:`BeforeCommit`).
    """
    engine = make_engine(url)
    try:
        await upgrade_engine(engine)
    except BaseException:
        await engine.dispose()
        raise
    return SqlStore(engine, before_commit=before_commit)


class SqlStore(MailSql, RankedSql):
    """The Store on an async SQLAlchemy engine; made by :func:`open_store`."""

    def __init__(self, engine: AsyncEngine, *, before_commit: BeforeCommit | None = None) -> None:
        self._engine = engine
        self._closed = False
        self._before_commit = before_commit or _nothing
        # SQLite has one writer at a time: writes queue for group commit.  PostgreSQL commits
        # concurrent transactions together by itself, so each write has its own connection.
        sqlite = engine.url.get_backend_name() == "sqlite"
        self.shared = not sqlite  # PostgreSQL: a cluster's processes share it
        self._writer = None
        if sqlite:
            path = sqlite_file(engine.url)  # a file's commits are counted (store/commits.py)
            marks = CommitMarks(marks_path(path.resolve())) if path is not None else None
            self._writer = GroupCommit(make_sqlite_writer_engine(engine), marks)

    @property
    def url(self) -> str:
        """The database URL, without its password."""
        return shown(self._engine.url)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the store is closed")

    async def _write(self, write: Write) -> None:
        """Run ``write`` in a transaction and return once it is durable."""
        self._check_open()
        with database_errors(self._engine.url):
            if self._writer is not None:
                await self._writer.run(write)
            else:
                async with self._engine.begin() as connection:
                    await connection.run_sync(write)

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[AsyncSession]:
        self._check_open()
        with database_errors(self._engine.url):
            async with AsyncSession(self._engine, expire_on_commit=False) as session:
                yield session

    async def create_table(self, record: TableRecord) -> None:
        check_table(record)
        await self._write(partial(_create_table, record=record))

    async def get_table(self, table_id: str) -> TableRecord | None:
        return await self._one(TableRow.id == table_id)

    async def find_by_code(self, code: str) -> TableRecord | None:
        return await self._one(TableRow.code == code.upper())

    async def update_table(self, record: TableRecord, *, lease: Lease | None = None) -> None:
        texts = check_table(record)
        await self._write(_fenced(lease, partial(_update_table, record=record, texts=texts)))

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
            fenced = partial(
                _fenced_append,
                table_id=table_id,
                entry=entry,
                payload=payload,
                lease=lease,
                hook=self._before_commit,
            )
            await self._write(fenced)
            return
        write = partial(
            _append, table_id=table_id, entry=entry, payload=payload, hook=self._before_commit
        )
        await self._write(_fenced(lease, write))

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
        await self._write(_fenced(lease, write))

    # ------------------------------------------------------------------ leases

    def _now(self) -> ColumnElement[float]:
        """The store's clock: PostgreSQL's own on PostgreSQL (every process of a cluster
        shares it, whatever their clocks say), this process's on SQLite (one process)."""
        if self._writer is None:
            return sql_cast(func.extract("epoch", func.clock_timestamp()), Float)
        return literal(time.time(), Float)

    async def take_lease(self, name: str, owner: str, seconds: float) -> Lease | None:
        taken: list[Lease] = []
        now = self._now()
        await self._write(
            partial(_take_lease, name=name, owner=owner, until=now + seconds, now=now, out=taken)
        )
        return taken[0] if taken else None

    async def renew_leases(self, owner: str, names: Sequence[str], seconds: float) -> set[str]:
        if not names:
            return set()
        renewed: set[str] = set()
        until = self._now() + seconds

        now = self._now()

        def write(connection: Connection) -> None:
            # Only leases still running: a process that resumes after its leases ran out (a
            # stall) does not renew them, it lets those tables go (its renew sees them gone),
            # whether or not another process took them meanwhile.
            query = (
                update(LeaseRow)
                .where(
                    LeaseRow.owner == owner,
                    LeaseRow.name.in_(list(names)),
                    LeaseRow.expires_at > now,
                )
                .values(expires_at=until)
                .returning(LeaseRow.name)
            )
            _lock_timeout(connection, RENEW_LOCK_TIMEOUT_MS)
            renewed.update(connection.execute(query).scalars())

        await self._write(write)
        return renewed

    async def release_leases(self, owner: str, names: Sequence[str]) -> None:
        if not names:
            return
        query = (
            update(LeaseRow)
            .where(LeaseRow.owner == owner, LeaseRow.name.in_(list(names)))
            .values(expires_at=0.0)
        )

        def write(connection: Connection) -> None:
            connection.execute(query)

        await self._write(write)

    async def get_lease(self, name: str) -> tuple[Lease, bool] | None:
        query = select(
            LeaseRow.name,
            LeaseRow.owner,
            LeaseRow.fence,
            LeaseRow.expires_at,
            LeaseRow.expires_at > self._now(),
        ).where(LeaseRow.name == name)
        async with self._session() as session:
            row = (await session.execute(query)).first()
        if row is None:
            return None
        return Lease(row[0], row[1], row[2], row[3]), bool(row[4])

    async def cluster_id(self) -> int:
        made = secrets.randbits(62)

        def write(connection: Connection) -> None:
            dialect = connection.dialect.name
            insert_ = postgresql.insert if dialect == "postgresql" else sqlite.insert
            row = insert_(MetaRow).values(key=CLUSTER_KEY, value=made)
            connection.execute(row.on_conflict_do_nothing(index_elements=[MetaRow.key]))

        await self._write(write)
        async with self._session() as session:
            found = await session.scalar(select(MetaRow.value).where(MetaRow.key == CLUSTER_KEY))
        if found is None:  # never: it was written just now
            raise StoreError("the cluster id could not be stored")
        return int(found)

    async def unowned_tables(self, limit: int) -> list[str]:
        lease_name = literal(TABLE_LEASE) + TableRow.id
        query = (
            select(TableRow.id)
            .outerjoin(LeaseRow, LeaseRow.name == lease_name)
            .where(
                TableRow.status.in_(ACTIVE_STATUSES),
                or_(LeaseRow.name.is_(None), LeaseRow.expires_at <= self._now()),
            )
            .order_by(TableRow.created_at, TableRow.id)
            .limit(limit)
        )
        async with self._session() as session:
            return list(await session.scalars(query))

    async def ping(self) -> None:
        async with self._session() as session:
            await session.execute(text("SELECT 1"))

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

    # ------------------------------------------------------------------ accounts

    async def create_user(self, user: UserRecord, guest_ids: Sequence[str] = ()) -> None:
        write = partial(accounts.create_user, user=user, guest_ids=guest_ids, at=user.created_at)
        await self._write(write)

    async def get_user(self, user_id: str) -> UserRecord | None:
        async with self._session() as session:
            row = await session.get(UserRow, user_id)
            return None if row is None else accounts.user_record(row)

    async def find_user(self, name_key: str) -> UserRecord | None:
        async with self._session() as session:
            row = await session.scalar(select(UserRow).where(UserRow.name_key == name_key))
            return None if row is None else accounts.user_record(row)

    async def find_lookalike(self, name_skeleton: str) -> UserRecord | None:
        query = select(UserRow).where(UserRow.name_skeleton == name_skeleton)
        async with self._session() as session:
            row = await session.scalar(query)
            return None if row is None else accounts.user_record(row)

    async def owner_of_player(self, player_id: str) -> str | None:
        query = select(UserPlayerRow.user_id).where(UserPlayerRow.player_id == player_id)
        async with self._session() as session:
            found: str | None = await session.scalar(query)
            return found

    async def link_players(self, user_id: str, player_ids: Sequence[str], at: float) -> list[str]:
        linked: list[str] = []

        def write(connection: Connection) -> None:
            accounts.user_exists(connection, user_id)
            linked[:] = accounts.link_players(connection, user_id, player_ids, at)

        await self._write(write)
        return linked

    async def user_players(self, user_id: str) -> list[str]:
        async with self._session() as session:
            return list(await session.scalars(accounts.user_players_query(user_id)))

    async def set_password(
        self,
        user_id: str,
        password_hash: str,
        at: float,
        *,
        end_sessions: bool = True,
        keep_session: str | None = None,
    ) -> None:
        write = partial(
            accounts.set_password,
            user_id=user_id,
            password_hash=password_hash,
            at=at,
            end_sessions=end_sessions,
            keep=keep_session,
        )
        await self._write(write)

    async def set_email(self, user_id: str, email: str | None, at: float) -> None:
        await self._write(partial(accounts.set_email, user_id=user_id, email=email, at=at))

    async def create_session(self, session: SessionRecord) -> None:
        await self._write(partial(accounts.create_session, session=session))

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        query = select(SessionRow).where(SessionRow.token_hash == token_hash)
        async with self._session() as session:
            row = await session.scalar(query)
            return None if row is None else accounts.session_record(row)

    async def touch_session(self, session_id: str, last_seen: float) -> None:
        write = partial(accounts.touch_session, session_id=session_id, last_seen=last_seen)
        await self._write(write)

    async def user_sessions(self, user_id: str) -> list[SessionRecord]:
        query = (
            select(SessionRow)
            .where(SessionRow.user_id == user_id)
            .order_by(SessionRow.created_at.desc(), SessionRow.id)
        )
        async with self._session() as session:
            return [accounts.session_record(row) for row in await session.scalars(query)]

    async def delete_session(self, user_id: str, session_id: str) -> bool:
        ended: list[int] = []

        def write(connection: Connection) -> None:
            ended.append(accounts.delete_session(connection, user_id, session_id))

        await self._write(write)
        return sum(ended) > 0

    async def delete_sessions(self, user_id: str, keep: str | None = None) -> int:
        ended: list[int] = []

        def write(connection: Connection) -> None:
            ended.append(accounts.delete_sessions(connection, user_id, keep))

        await self._write(write)
        return sum(ended)

    async def token_floors(self) -> dict[str, int]:
        query = select(TokenFloorRow.player_id, TokenFloorRow.valid_from)
        async with self._session() as session:
            return {player: floor for player, floor in await session.execute(query)}

    async def set_token_floor(self, player_id: str, valid_from: int) -> None:
        check_floor(player_id, valid_from)
        await self._write(partial(_set_token_floor, player_id=player_id, valid_from=valid_from))

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

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            with database_errors(self._engine.url):
                if self._writer is not None:
                    await self._writer.close()
                await self._engine.dispose()

    async def _one(self, where: ColumnElement[bool]) -> TableRecord | None:
        query = select(TableRow).where(where).options(selectinload(TableRow.seats))
        async with self._session() as session:
            row = await session.scalar(query)
            return None if row is None else _table_record(row)


# The writes.  Each refuses (StoreError) only before it has changed anything, as the group
# commit requires: its neighbours in the transaction are committed regardless.


def _create_table(connection: Connection, record: TableRecord) -> None:
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
_COLUMNS = TableRow.__table__.c
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


def _update_table(connection: Connection, record: TableRecord, texts: tuple[str, str]) -> None:
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


# Built once: every write of a cluster's table runs it (bound parameters, one cached compile).
_CHECK_LEASE = (
    update(LeaseRow)
    .where(
        LeaseRow.name == bindparam("lease_name"),
        LeaseRow.owner == bindparam("lease_owner"),
        LeaseRow.fence == bindparam("lease_fence"),
    )
    .values(fence=LeaseRow.fence)
)


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
        kind = integrity_kind(e)
        if kind == "unique":
            taken = f"table {table_id!r} already has log entry {entry.seq}"
            raise SequenceConflict(taken) from None
        if kind == "foreign_key":
            raise StoreError(f"no table {table_id!r}") from None
        raise
    if inserted.rowcount != 1:
        raise LeaseLost(
            f"lease {lease.name} (fence {lease.fence}) is no longer held by this process"
        )
    hook(table_id, entry.seq)


def _fenced(lease: Lease | None, write: Write) -> Write:
    """``write``, first checking in its transaction that ``lease`` is still held as it was."""
    if lease is None:
        return write

    def fenced(connection: Connection) -> None:
        _check_lease(connection, lease)
        write(connection)

    return fenced


def _check_lease(connection: Connection, lease: Lease) -> None:
    # An UPDATE, not a SELECT: on PostgreSQL it locks the lease's row until this transaction
    # ends, so a takeover (which updates the row) waits for this write to commit or fail, and
    # a write after a takeover sees the new fence.  It refuses before anything has changed.
    held = connection.execute(
        _CHECK_LEASE,
        {"lease_name": lease.name, "lease_owner": lease.owner, "lease_fence": lease.fence},
    )
    if held.rowcount != 1:
        raise LeaseLost(
            f"lease {lease.name} (fence {lease.fence}) is no longer held by this process"
        )


# How long a lease's statement waits for its row's lock on PostgreSQL.  A takeover never waits
# on a stalled owner's transaction (it reports LeaseBusy and is tried again); a renewal waits
# for this process's own write under way on the row, never for ever (then StoreError: the
# leases stand until their time runs out here).
TAKE_LOCK_TIMEOUT_MS = 200
RENEW_LOCK_TIMEOUT_MS = 1000
_LOCK_NOT_AVAILABLE = "55P03"


def _lock_timeout(connection: Connection, ms: int) -> None:
    """Bound, for the rest of this transaction, how long a statement waits for a row lock."""
    if connection.dialect.name == "postgresql":
        connection.execute(text(f"SET LOCAL lock_timeout = {int(ms)}"))


def _take_lease(
    connection: Connection,
    name: str,
    owner: str,
    until: ColumnElement[float],
    now: ColumnElement[float],
    out: list[Lease],
) -> None:
    dialect = connection.dialect.name
    insert_ = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert_(LeaseRow).values(name=name, owner=owner, fence=1, expires_at=until)
    statement = statement.on_conflict_do_update(
        index_elements=[LeaseRow.name],
        set_={
            "owner": owner,
            "expires_at": until,
            # A takeover raises the fence; the owner renewing its own lease keeps it.
            "fence": case((LeaseRow.owner == owner, LeaseRow.fence), else_=LeaseRow.fence + 1),
        },
        where=or_(LeaseRow.expires_at <= now, LeaseRow.owner == owner),
    )
    returned = statement.returning(
        LeaseRow.name, LeaseRow.owner, LeaseRow.fence, LeaseRow.expires_at
    )
    _lock_timeout(connection, TAKE_LOCK_TIMEOUT_MS)
    try:
        row = connection.execute(returned).first()
    except DBAPIError as e:
        if getattr(e.orig, "sqlstate", None) == _LOCK_NOT_AVAILABLE:
            raise LeaseBusy(f"lease {name} is locked by a write under way") from None
        raise
    if row is not None:
        out.append(Lease(row[0], row[1], row[2], row[3]))


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
    hook: BeforeCommit = _nothing,
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
        kind = integrity_kind(e)
        if kind == "unique":
            taken = f"table {table_id!r} already has log entry {entry.seq}"
            raise SequenceConflict(taken) from None
        if kind == "foreign_key":
            raise StoreError(f"no table {table_id!r}") from None
        raise
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
    hook: BeforeCommit = _nothing,
) -> None:
    driver = cast(sqlite3.Connection, connection.connection.driver_connection)
    row = (table_id, entry.seq, entry.kind, payload, entry.created_at)
    try:
        driver.execute(_SQLITE_INSERT_LOG, row)
    except sqlite3.IntegrityError as e:
        name = getattr(e, "sqlite_errorname", None)
        if name in ("SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"):
            taken = f"table {table_id!r} already has log entry {entry.seq}"
            raise SequenceConflict(taken) from None
        if name == "SQLITE_CONSTRAINT_FOREIGNKEY":
            raise StoreError(f"no table {table_id!r}") from None
        raise
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
    _update_table(connection, record, texts)
    hook(record.id, entry.seq)


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


def _sqlite_update_table(
    connection: Connection, record: TableRecord, texts: tuple[str, str]
) -> None:
    driver = cast(sqlite3.Connection, connection.connection.driver_connection)
    rules, settings = texts
    fields = _mutable_fields(record)
    fields["rules"], fields["settings"] = rules, settings
    # As the Float columns do: a time given as another kind of number is stored as a float.
    fields["updated_at"] = float(record.updated_at)
    fields["seed"] = str(record.seed)  # as SeedText writes it: decimal text
    if record.deadline is not None:
        fields["deadline"] = float(record.deadline)
    values = [fields[name] for name in _MUTABLE]
    changed = driver.execute(_SQLITE_UPDATE_TABLE, (*values, record.id)).rowcount
    if changed == 0:
        raise StoreError(f"no table {record.id!r}")
    seats = sorted((s.seat, s.kind, s.name, s.player_id, s.bot_level) for s in record.seats)
    if driver.execute(_SQLITE_SEATS_OF, (record.id,)).fetchall() == seats:
        return
    driver.execute(_SQLITE_DELETE_SEATS, (record.id,))
    driver.executemany(_SQLITE_INSERT_SEAT, [(record.id, *seat) for seat in seats])


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
