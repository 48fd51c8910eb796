"""Stores to test against: in memory, SQLite in a temporary file, and a real PostgreSQL.

PostgreSQL is the server on 127.0.0.1:5432 (trust auth).  Each test gets a database of its own,
created from the ``test`` database as the first role that can log in (``postgres``, then
``root``) and dropped afterwards, so parallel workers never share rows.  The PostgreSQL cases
are skipped, with the reason, only when no server answers there.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from facedown.store import MemoryStore, Store, make_engine, open_store
from facedown.store.migrate import upgrade

PG_SERVER = "127.0.0.1:5432"
PG_USERS = ("postgres", "root")

T = TypeVar("T")

_pg_user: list[str] = []  # the role that worked, once known


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _pg_url(user: str, database: str) -> str:
    return f"postgresql+asyncpg://{user}@{PG_SERVER}/{database}"


@asynccontextmanager
async def _admin() -> AsyncIterator[tuple[str, AsyncConnection]]:
    """An autocommit connection to the ``test`` database, as the first role that works."""
    errors: list[str] = []
    for user in _pg_user or PG_USERS:
        engine = create_async_engine(
            _pg_url(user, "test"), isolation_level="AUTOCOMMIT", connect_args={"timeout": 10}
        )
        try:
            try:
                connection = await engine.connect()
            except (OSError, TimeoutError) as e:
                pytest.skip(f"PostgreSQL unreachable at {PG_SERVER}: {e}")
            except DBAPIError as e:
                errors.append(f"{user}: {e.orig}")
                continue
            _pg_user[:] = [user]
            try:
                yield user, connection
            finally:
                await connection.close()
            return
        finally:
            await engine.dispose()
    raise RuntimeError(f"cannot log in to PostgreSQL at {PG_SERVER}: {errors}")


async def _create_database() -> str:
    """Create a uniquely named PostgreSQL database; its URL."""
    name = f"facedown_test_{uuid.uuid4().hex[:16]}"
    async with _admin() as (user, admin):
        await admin.execute(text(f'CREATE DATABASE "{name}"'))
    return _pg_url(user, name)


async def _drop_database(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    async with _admin() as (_, admin):
        await admin.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@asynccontextmanager
async def postgres_database() -> AsyncIterator[str]:
    """A fresh, uniquely named PostgreSQL database for one test; yields its URL."""
    url = await _create_database()
    try:
        yield url
    finally:
        await _drop_database(url)


@pytest.fixture
async def postgres_url(anyio_backend: str) -> AsyncIterator[str]:
    """The URL of an empty PostgreSQL database of its own."""
    async with postgres_database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, anyio_backend: str
) -> AsyncIterator[str]:
    """The URL of an empty database: a SQLite file, or a PostgreSQL database of its own."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'facedown.db'}"
    else:
        async with postgres_database() as url:
            yield url


@pytest.fixture(scope="session")
def shared_postgres_url() -> Iterator[str]:
    """One migrated PostgreSQL database for the contract tests of this worker process.

    Migrating a fresh database for every test costs most of a second; the contract tests only
    need empty tables, which the ``store`` fixture makes by truncating them.
    """
    url = _in_own_loop(_create_database)
    try:
        _in_own_loop(lambda: upgrade(url))
        yield url
    finally:
        _in_own_loop(lambda: _drop_database(url))


def _in_own_loop(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``work()`` to completion in a new event loop (pytest may be inside one already)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, work()).result()


async def _empty_tables(url: str) -> None:
    engine = make_engine(url)
    try:
        async with engine.begin() as connection:
            tables = (
                "ranked_seats, ranked_matches, ranked_queue, ratings, "
                "sessions, user_players, mail_accounts, mail_counts, users, table_log, seats, "
                "tables, scoreboards, leases"
            )
            await connection.execute(text(f"TRUNCATE {tables}"))
    finally:
        await engine.dispose()


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, anyio_backend: str
) -> AsyncIterator[Store]:
    """Each Store implementation, empty and open; closed after the test."""
    if request.param == "memory":
        opened: Store = MemoryStore()
    elif request.param == "sqlite":
        opened = await open_store(f"sqlite:///{tmp_path / 'facedown.db'}")
    else:
        url = request.getfixturevalue("shared_postgres_url")
        await _empty_tables(url)
        opened = await open_store(url)
    try:
        yield opened
    finally:
        await opened.close()
