"""Engines and errors: how a URL becomes an async engine, and a database error a StoreError.

SQLite is the default and must survive ``kill -9``: every connection runs in WAL mode with
``synchronous=FULL``, so a commit is on disk when it returns, and enforces foreign keys.
Operators may write plain ``sqlite:///`` and ``postgresql://`` URLs; the async drivers are
filled in.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from .commits import check_commits
from .records import DatabaseDamaged, StoreError

ASYNC_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}
CONNECT_TIMEOUT = 10.0  # seconds before an unreachable PostgreSQL is reported
# PostgreSQL ends a session of ours that sits this long inside a transaction without sending
# its next statement: a process stopped (SIGSTOP, a frozen VM) between a fenced write and its
# commit would otherwise keep its lease's row locked for as long as the stall lasts, and hold
# up the takeover of its tables.  Far above any transaction's own pauses (milliseconds), well
# below the lease time (5 s): the lock is gone before the lease runs out.
IDLE_IN_TRANSACTION_SECONDS = 2.0
# The one transaction that pauses for longer: a schema migration (store/migrate.py), between
# whose statements Alembic loads its scripts and renders the next ones, which took over 2 s on
# a loaded two-core machine.  It holds no lease's row; this bounds a stalled migration only.
MIGRATION_IDLE_IN_TRANSACTION_SECONDS = 60.0
SQLITE_BUSY_TIMEOUT_MS = 10_000  # how long a writer waits for another one's lock
INTEGRITY_PROBLEMS = 10  # problems PRAGMA quick_check reports before it stops

# SQLSTATE classes that mean "could not get a working connection" rather than a bad statement:
# connection exception, invalid authorization, invalid catalog (no such database), shutdown.
_CONNECT_SQLSTATES = ("08", "28", "3D", "57P")


def database_url(url: str) -> URL:
    """Parse ``url`` and fill in the async driver (``postgresql://`` -> ``postgresql+asyncpg://``)."""
    try:
        parsed = make_url(url)
    except ArgumentError as e:
        raise StoreError(f"invalid database URL {url!r}: {e}") from None
    backend = parsed.get_backend_name()
    if backend == "postgres":
        backend = "postgresql"
    if backend not in ASYNC_DRIVERS:
        raise StoreError(f"unsupported database {backend!r}: use sqlite:/// or postgresql://")
    wanted = ASYNC_DRIVERS[backend]
    if parsed.drivername in (backend, parsed.get_backend_name()):
        return parsed.set(drivername=wanted)
    if parsed.drivername != wanted:
        raise StoreError(f"unsupported driver {parsed.drivername!r}: use {wanted}:// (async)")
    return parsed


def shown(url: URL) -> str:
    """The URL for messages, without its password."""
    return url.render_as_string(hide_password=True)


DATA_FILE = "facedown.db"  # the SQLite database of a data folder (``--data``)


def data_folder_url(folder: Path) -> str:
    """The URL of a data folder's SQLite database."""
    return f"sqlite+aiosqlite:///{(folder / DATA_FILE).resolve()}"


def sqlite_file(url: str | URL) -> Path | None:
    """The file of a SQLite URL (None for PostgreSQL, or SQLite in memory)."""
    parsed = database_url(url) if isinstance(url, str) else url
    path = parsed.database
    if parsed.get_backend_name() != "sqlite" or not path or path == ":memory:":
        return None
    return None if path.startswith("file:") else Path(path)


def check_database(url: str) -> None:
    """What can be checked before serving: a SQLite file opens and passes its integrity check
    (raise StoreError, DatabaseDamaged when damaged).  PostgreSQL is checked by connecting."""
    path = sqlite_file(url)
    if path is not None:
        _check_sqlite_file(path, database_url(url))


def make_engine(url: str) -> AsyncEngine:
    """An async engine for ``url``; SQLite files get their folder created, their integrity
    checked and durable pragmas."""
    parsed = database_url(url)
    connect_args: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_file(parsed)
        if path is not None:
            _check_sqlite_file(path, parsed)
    else:
        connect_args["timeout"] = CONNECT_TIMEOUT
        idle = str(int(IDLE_IN_TRANSACTION_SECONDS * 1000))
        connect_args["server_settings"] = {"idle_in_transaction_session_timeout": idle}
    # A pooled PostgreSQL connection may have died (server restart, failover): test each one
    # as it is taken from the pool rather than fail the write that would have used it.
    pre_ping = parsed.get_backend_name() == "postgresql"
    engine = create_async_engine(parsed, connect_args=connect_args, pool_pre_ping=pre_ping)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def make_sqlite_writer_engine(engine: AsyncEngine) -> Engine:
    """A plain (sync) engine on the same SQLite database as ``engine``, for the writer thread."""
    writer = create_engine(engine.url.set(drivername="sqlite+pysqlite"))
    event.listen(writer, "connect", _sqlite_pragmas)
    return writer


def _check_sqlite_file(path: Path, url: URL) -> None:
    """Create the file's folder and open it once, so a bad path fails here with a clear message
    (aiosqlite reports a failed open from its worker thread, after the caller may be gone), and
    check the file's integrity: a damaged database is refused (DatabaseDamaged)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path)
    except (OSError, sqlite3.Error) as e:
        raise StoreError(f"database unreachable at {shown(url)}: cannot open {path}: {e}") from None
    try:
        check_sqlite_integrity(connection, path)
        check_commits(connection, path.resolve())  # commits lost with a damaged WAL
    finally:
        connection.close()


def check_sqlite_integrity(connection: sqlite3.Connection, path: Path | str) -> None:
    """Run SQLite's ``PRAGMA quick_check`` (every page and b-tree, without matching indexes to
    rows: linear in the file's size); raise DatabaseDamaged naming the file and the first
    problems unless it says ok."""
    try:
        rows = connection.execute(f"PRAGMA quick_check({INTEGRITY_PROBLEMS})").fetchall()
        problems = [str(row[0]) for row in rows]
    except sqlite3.DatabaseError as e:  # not a database at all, or its header is gone
        problems = [str(e)]
    if problems != ["ok"]:
        raise DatabaseDamaged(
            f"the SQLite database {path} is damaged (PRAGMA quick_check): "
            + "; ".join(problems)
            + ". Refusing to serve it: restore the last copy made with `facedown backup`"
            " (see docs/server.md), or move the file away to start empty."
        )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()


IntegrityKind = Literal["unique", "foreign_key", "other"]


def integrity_kind(error: IntegrityError) -> IntegrityKind:
    """Which constraint an IntegrityError broke, on SQLite or PostgreSQL."""
    sqlstate = getattr(error.orig, "sqlstate", None)
    name = getattr(error.orig, "sqlite_errorname", None)
    if sqlstate == "23505" or name in ("SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"):
        return "unique"
    if sqlstate == "23503" or name == "SQLITE_CONSTRAINT_FOREIGNKEY":
        return "foreign_key"
    return "other"


def describe(error: BaseException, url: URL) -> StoreError:
    """A StoreError that says what went wrong with the database at ``url``, in a sentence."""
    if isinstance(error, StoreError):
        return error
    if isinstance(error, DBAPIError) and error.orig is not None:
        detail = str(error.orig).strip() or type(error.orig).__name__
        sqlstate = str(getattr(error.orig, "sqlstate", "") or "")
        cannot_connect = error.connection_invalidated or sqlstate.startswith(_CONNECT_SQLSTATES)
        if "unable to open database file" in detail:
            cannot_connect = True
    elif isinstance(error, sqlite3.Error):  # a statement run on the driver itself (the writer)
        detail = str(error).strip() or type(error).__name__
        cannot_connect = "unable to open database file" in detail
    else:
        detail = str(error).strip() or type(error).__name__
        cannot_connect = isinstance(error, OSError | TimeoutError)
    if cannot_connect:
        return StoreError(f"database unreachable at {shown(url)}: {detail}")
    return StoreError(f"database error at {shown(url)}: {detail}")


@contextmanager
def database_errors(url: URL) -> Iterator[None]:
    """Turn driver and connection errors raised inside the block into StoreError."""
    try:
        yield
    except StoreError:
        raise
    except (SQLAlchemyError, sqlite3.Error, OSError, TimeoutError) as e:
        raise describe(e, url) from e
