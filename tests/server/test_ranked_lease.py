"""Matchmaking runs once per queue with several server processes: two ranked services, each
with its own lobby and its own store connection to one database (a SQLite file, a PostgreSQL
database), match the same queue at the same moments; only the lease's holder makes matches,
every player is matched once, and when the holder stops, the other takes over once the lease
has lapsed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest

from facedown.server.app import bot_for_seat
from facedown.server.auth import Tokens
from facedown.server.clock import FakeClock
from facedown.server.context import TableConfig, TableContext
from facedown.server.hub import LocalHub
from facedown.server.lobby import Lobby
from facedown.server.matchmaking import RankedConfig
from facedown.server.ranked import Ranked
from facedown.store import RankedStore, SqlStore, UserRecord, open_store
from tests.store.conftest import postgres_database

CONFIG = RankedConfig(tick=1.0, lease_seconds=10.0, unseen_after=10_000.0)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'facedown.db'}"
    else:
        async with postgres_database() as url:
            yield url


@asynccontextmanager
async def process(url: str, clock: FakeClock, name: str) -> AsyncIterator[Ranked]:
    """One server process's ranked service: its own store connection and lobby."""
    store: SqlStore = await open_store(url)
    ctx = TableContext(store, LocalHub(), bot_for_seat, TableConfig(), clock)
    lobby = Lobby(ctx)
    ranked = Ranked(lobby, Tokens("lease-test"), clock, CONFIG, holder=name)
    try:
        yield ranked
    finally:
        await ranked.close()
        await lobby.close()
        await store.close()


@pytest.mark.anyio
async def test_one_process_matches_a_queue_at_a_time(database: str) -> None:
    clock = FakeClock()
    async with AsyncExitStack() as stack:
        one = await stack.enter_async_context(process(database, clock, "one"))
        two = await stack.enter_async_context(process(database, clock, "two"))
        store: RankedStore = one.store
        users = [f"u{i:02}" for i in range(12)]
        for i, user in enumerate(users):
            record = UserRecord(user, user, user, "hash", f"p-{user}", 1.0, 1.0)
            await one.lobby.store.create_user(record)
            await store.enqueue(user, "kivo-2", clock.now() + i * 0.01)
        # Both match at the same moments, over and over.
        for _ in range(3):
            await asyncio.gather(one.tick(), two.tick())
            await clock.advance(CONFIG.tick)
        made_one, made_two = len(one.lobby.tables), len(two.lobby.tables)
        assert {made_one, made_two} == {0, 6}, "one process made every match"
        holder, other = (one, two) if made_one else (two, one)
        matches = [await store.ranked_match(t) for t in holder.lobby.tables]
        seated = [s.user_id for m in matches if m is not None for s in m.seats]
        assert sorted(seated) == users  # each player once
        assert await store.queue_entries("kivo-2") == []

        # The holder stops matching (its process died): the other waits for the lease to lapse.
        for user in ["late1", "late2"]:
            await one.lobby.store.create_user(UserRecord(user, user, user, "h", f"p-{user}", 1, 1))
            await store.enqueue(user, "kivo-2", clock.now())
        await other.tick()
        assert len(other.lobby.tables) == 0  # the lease is still the holder's
        await clock.advance(CONFIG.lease_seconds)
        await other.tick()
        assert len(other.lobby.tables) == 1
        assert await store.queue_entries("kivo-2") == []
