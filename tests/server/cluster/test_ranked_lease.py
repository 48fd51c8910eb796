"""The ranked matchmaker runs once per cluster, under the cluster's fenced lease ``once:ranked``
(``Ownership.run_once``): two ranked services, each with its own lobby, its own store connection
and its own leases on one database (a SQLite file, a PostgreSQL database), run their matchmakers
side by side; only the lease's holder makes matches, every player is matched once, and when the
holder dies the other takes over within a bounded time.  A holder that stalled past a takeover
makes no match (the match's write is fenced), and the matchmaker never stops for good after
errors of the store, on one process or in a cluster.  A player whose match is made between the
two reads of their status (matched? waiting?) is told they are matched, not that they wait
nowhere."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from facedown.server.accounts.auth import Tokens
from facedown.server.app import bot_for_seat
from facedown.server.base.clock import Clock, FakeClock, SystemClock
from facedown.server.cluster.ownership import (
    LEASE_SECONDS,
    ONCE_LEASE,
    LeaseOwnership,
    Ownership,
    SoleOwner,
)
from facedown.server.modes.matchmaking import RankedConfig
from facedown.server.play.context import TableConfig, TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.play.ranked import MATCHMAKER, Matched, MatchmakerLost, Ranked
from facedown.server.transport.hub import LocalHub
from facedown.store import (
    MemoryStore,
    RankedMatchRecord,
    RankedStore,
    Store,
    StoreError,
    UserRecord,
    open_store,
)
from tests.store.conftest import postgres_database

CONFIG = RankedConfig(tick=0.05, unseen_after=10_000.0, min_account_age=0.0)
SECONDS = 1.0  # the lease: a dead holder's job is taken over about this long after it died
# The lease of the test where one process must keep the job all along: the server's own.  With
# 1 s (renewed each third, let go a fifth early) a loaded two-core machine's stall of about half
# a second lost it midway, and the other process made some of the matches.
HELD = LEASE_SECONDS
LEASE = ONCE_LEASE + MATCHMAKER
WITHIN = 30.0  # seconds: the bound of every wait (a loaded machine)
# What a process cut off from its database can no longer do: match, renew, let go, take.
CUT_OFF = ("waiting", "renew_leases", "release_leases", "take_lease")
TAKEOVER = 15.0  # seconds: the bound of a takeover (HELD's 5 s, and a loaded machine's)


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


@dataclass
class Process:
    """One server process's ranked service: its own store connection, leases and lobby."""

    name: str
    store: Store
    ranked: Ranked

    @property
    def made(self) -> int:
        return len(self.ranked.lobby.tables)


@asynccontextmanager
async def process(
    store: Store, name: str, clock: Clock, ownership: Ownership, *, start: bool = True
) -> AsyncIterator[Process]:
    ctx = TableContext(store, LocalHub(), bot_for_seat, TableConfig(), clock, ownership=ownership)
    lobby = Lobby(ctx)
    ranked = Ranked(lobby, Tokens("lease-test"), clock, CONFIG)
    if start:
        await ranked.start()
    try:
        yield Process(name, store, ranked)
    finally:
        await ranked.close()
        await lobby.close()
        await store.close()


async def until(condition: Callable[[], Awaitable[bool]], within: float = WITHIN) -> None:
    """Wait (bounded) until ``condition()`` holds."""
    deadline = time.monotonic() + within
    while not await condition():
        assert time.monotonic() < deadline, "it never happened"
        await asyncio.sleep(0.05)


async def accounts(store: Store, *users: str, queue: str = "kivo-2") -> None:
    ranked = cast(RankedStore, store)
    for i, user in enumerate(users):
        await store.create_user(UserRecord(user, user, user, "hash", f"p-{user}", 1.0, 1.0))
        await ranked.enqueue(user, queue, time.time() + i * 0.01)


async def nobody_waits(store: Store) -> bool:
    ranked = cast(RankedStore, store)
    return await ranked.waiting() == {}


@pytest.mark.anyio
async def test_one_process_matches_at_a_time_and_another_takes_over_when_it_dies(
    database: str,
) -> None:
    clock = SystemClock()
    async with AsyncExitStack() as stack:
        processes = []
        for name in ["one", "two"]:
            store = await open_store(database)
            ownership = LeaseOwnership(store, name, HELD)
            processes.append(
                await stack.enter_async_context(process(store, name, clock, ownership))
            )
        one, two = processes
        users = [f"u{i:02}" for i in range(12)]
        await accounts(one.store, *users)

        async def six() -> bool:  # the queue is empty, and each match made is served
            return await nobody_waits(one.store) and one.made + two.made == 6

        await until(six)
        assert {one.made, two.made} == {0, 6}, "one process made every match"
        holder, other = (one, two) if one.made else (two, one)
        lease = await holder.store.get_lease(LEASE)
        assert lease is not None
        assert (lease[0].owner, lease[0].fence) == (holder.name, 1)
        ranked = cast(RankedStore, holder.store)
        matches = [await ranked.ranked_match(t) for t in holder.ranked.lobby.tables]
        seated = [s.user_id for m in matches if m is not None for s in m.seats]
        assert sorted(seated) == users  # each player once

        # The holder dies (it loses its database: no renewal, no match, no letting go); two
        # players queue.  The other takes the job over once the lease has lapsed, and matches.
        Outage(holder.store, *CUT_OFF).down = True
        await accounts(other.store, "late1", "late2")

        async def one_more() -> bool:
            return await nobody_waits(other.store) and other.made == 1

        await until(one_more, within=TAKEOVER)
        lease = await other.store.get_lease(LEASE)
        assert lease is not None
        assert (lease[0].owner, lease[0].fence) == (other.name, 2)


@pytest.mark.anyio
async def test_a_stalled_holder_makes_no_match_after_a_takeover(database: str) -> None:
    clock = FakeClock()
    async with AsyncExitStack() as stack:
        processes = []
        for name in ["one", "two"]:
            store = await open_store(database)
            processes.append(
                await stack.enter_async_context(
                    process(store, name, clock, SoleOwner(), start=False)
                )
            )
        one, two = processes
        old = await one.store.take_lease(LEASE, "one", 0.0)  # and then "one" stalls
        assert old is not None
        await accounts(one.store, "ann", "bob")
        new = await two.store.take_lease(LEASE, "two", 60.0)  # the lease lapsed: taken over
        assert new is not None
        with pytest.raises(MatchmakerLost):
            await one.ranked.tick(old)  # "one" wakes up and matches with its old lease
        assert one.made == 0
        ranked = cast(RankedStore, one.store)
        assert await ranked.waiting() == {"kivo-2": 2}  # nobody taken out of the queue
        assert await ranked.unrated_matches() == []
        assert await two.ranked.tick(new) == 1
        assert two.made == 1
        assert await ranked.waiting() == {}


@pytest.mark.anyio
async def test_a_player_matched_between_the_reads_of_their_status_is_told_so() -> None:
    store = MemoryStore()
    async with process(store, "one", FakeClock(), SoleOwner(), start=False) as one:
        await accounts(store, "ann", "bob")
        ranked = cast(RankedStore, store)
        real = ranked.unrated_matches
        made: list[int] = []

        async def matched_meanwhile(user_id: str | None = None) -> list[RankedMatchRecord]:
            found = await real(user_id)
            if user_id == "ann" and not made:  # the match commits right after this read
                made.append(await one.ranked.tick())
            return found

        setattr(store, "unrated_matches", matched_meanwhile)  # noqa: B010 - a method's stand-in
        ann = await store.get_user("ann")
        assert ann is not None
        status = await one.ranked.status(ann, session="a session")
        assert made == [1]
        assert isinstance(status, Matched)
        assert status.table_id in one.ranked.lobby.tables


class Outage:
    """Makes some of a store's methods fail while ``down`` (the database is gone a moment)."""

    def __init__(self, store: Store, *methods: str) -> None:
        self.down = False
        self.failed: dict[str, int] = {m: 0 for m in methods}
        for method in methods:
            setattr(store, method, self._failing(method, getattr(store, method)))

    def _failing(
        self, method: str, real: Callable[..., Awaitable[Any]]
    ) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                self.failed[method] += 1
                raise StoreError("the database is unreachable (a test's outage)")
            return await real(*args, **kwargs)

        return call


@pytest.mark.anyio
@pytest.mark.parametrize("cluster", [False, True])
async def test_the_matchmaker_goes_on_after_the_store_failed(cluster: bool) -> None:
    store = MemoryStore()
    lease_methods = ("take_lease", "renew_leases") if cluster else ()
    outage = Outage(store, "waiting", *lease_methods)
    ownership: Ownership = LeaseOwnership(store, "one", SECONDS) if cluster else SoleOwner()
    async with process(store, "one", SystemClock(), ownership) as one:
        if cluster:
            await until(lambda: _held(store))
        outage.down = True
        # Down for longer than the lease: in a cluster the job loses its lease and stops, and
        # tries to take it again meanwhile.
        await until(lambda: _failed(outage))
        await asyncio.sleep(2 * SECONDS)
        outage.down = False
        await accounts(store, "ann", "bob")

        async def matched() -> bool:
            return await nobody_waits(store) and one.made == 1

        await until(matched)
        assert outage.failed["waiting"] >= 2


async def _held(store: Store) -> bool:
    found = await store.get_lease(LEASE)
    return found is not None and found[1]


async def _failed(outage: Outage) -> bool:
    return all(n > 0 for n in outage.failed.values())
