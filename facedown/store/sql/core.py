"""The SQL store's connection to its database: how a write is run and committed, how a read
gets a session, the store's clock, and closing.  Every concern of :mod:`facedown.store.sql`
is a subclass of :class:`SqlBase`, and :class:`~facedown.store.sql.store.SqlStore` is made of
them all.

Writes are Core statements in short transactions: on PostgreSQL one transaction per write, on
SQLite the writes waiting at a moment share one (group commit, see
:mod:`facedown.store.writer`).  Every write returns only once committed.  Reads go through the
ORM for typed rows.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from sqlalchemy import ColumnElement, Float, func, literal, text
from sqlalchemy import cast as sql_cast
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from ..commits import CommitMarks, marks_path
from ..database import database_errors, make_sqlite_writer_engine, shown, sqlite_file
from ..records import StoreError
from ..writer import GroupCommit, Write

# Called inside the transaction of a log write, after its statements and before its commit,
# with the table id and the entry's seq (a test hook: server/base/crashhook.py).
BeforeCommit = Callable[[str, int], None]


def no_hook(_table_id: str, _seq: int) -> None:
    """The :data:`BeforeCommit` of a store outside tests: nothing."""
    return None


class SqlBase:
    """The engine, the writer and the session every part of the SQL store writes and reads
    through."""

    def __init__(self, engine: AsyncEngine, *, before_commit: BeforeCommit | None = None) -> None:
        self._engine = engine
        self._closed = False
        self._before_commit = before_commit or no_hook
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

    def _now(self) -> ColumnElement[float]:
        """The store's clock: PostgreSQL's own on PostgreSQL (every process of a cluster
        shares it, whatever their clocks say), this process's on SQLite (one process)."""
        if self._writer is None:
            return sql_cast(func.extract("epoch", func.clock_timestamp()), Float)
        return literal(time.time(), Float)

    async def ping(self) -> None:
        async with self._session() as session:
            await session.execute(text("SELECT 1"))

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            with database_errors(self._engine.url):
                if self._writer is not None:
                    await self._writer.close()
                await self._engine.dispose()
