"""Leases as the server uses them (server/cluster/ownership.py), on PostgreSQL: a table claimed by
one process at a time, renewal, letting go, and the once-per-cluster hook."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest

from facedown.server.cluster.ownership import LeaseOwnership, SoleOwner, fair_share, surplus
from facedown.store import Lease, Store, open_store
from tests.store.conftest import postgres_database
from tests.store.test_contract import table

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def shared(anyio_backend: str) -> AsyncIterator[tuple[Store, Store]]:
    """Two processes' stores on one PostgreSQL database (two connection pools)."""
    async with postgres_database() as url:
        first, second = await open_store(url), await open_store(url)
        try:
            yield first, second
        finally:
            await first.close()
            await second.close()


async def until(condition: Callable[[], bool], within: float = 20.0) -> None:
    """Wait (bounded: a loaded machine) until ``condition()`` holds."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "it never happened"
        await asyncio.sleep(0.05)


async def test_a_table_is_claimed_by_one_process_and_handed_over_at_close(
    shared: tuple[Store, Store],
) -> None:
    one, two = shared
    await one.create_table(table())
    a = LeaseOwnership(one, "a", seconds=2.0, alive=lambda node: True)
    b = LeaseOwnership(two, "b", seconds=2.0, alive=lambda node: True)
    claimed = await a.claim("t1")
    assert claimed.held
    assert a.holds("t1")
    refused = await b.claim("t1")
    assert (refused.held, refused.owner) == (False, "a")
    await a.close()  # a graceful stop lets the lease go: b takes it at once, fence 2
    taken = await b.claim("t1")
    assert taken.held
    assert taken.lease is not None
    assert taken.lease.fence == 2
    await b.close()


async def test_the_lease_of_a_dead_owner_is_waited_out_then_taken(
    shared: tuple[Store, Store],
) -> None:
    one, two = shared
    await one.create_table(table())
    dead = LeaseOwnership(one, "dead", seconds=1.0)
    assert (await dead.claim("t1")).held  # and never renewed: its process "died"
    b = LeaseOwnership(two, "b", seconds=1.0, alive=lambda node: node != "dead")
    taken = await b.claim("t1")
    assert taken.held
    assert taken.lease is not None
    assert taken.lease.fence == 2
    lost: list[str] = []

    async def on_lost(table_id: str) -> None:
        lost.append(table_id)

    dead.start(on_lost)  # it wakes up: its renewal finds the lease gone, and lets the table go
    await until(lambda: lost == ["t1"])
    assert not dead.holds("t1")
    await dead.close()
    await b.close()


async def test_a_released_lease_is_taken_at_once_by_another_process(
    shared: tuple[Store, Store],
) -> None:
    one, two = shared
    await one.create_table(table())
    a = LeaseOwnership(one, "a", seconds=60.0, alive=lambda node: True)
    b = LeaseOwnership(two, "b", seconds=60.0, alive=lambda node: True)
    assert (await a.claim("t1")).held
    assert (await b.claim("t1")).owner == "a"  # a live owner's lease is refused
    await a.release("t1")  # a hands the table over: no renewal, and takeable now
    assert not a.holds("t1")
    assert a.held() == []
    started = time.monotonic()
    taken = await b.claim("t1")
    assert taken.held
    assert taken.lease is not None
    assert taken.lease.fence == 2  # a takeover: a write a made before is fenced off
    assert time.monotonic() - started < 30  # not waited out (60 s)
    await a.close()
    await b.close()


def test_a_process_alone_or_within_its_share_and_margin_hands_nothing_over() -> None:
    assert surplus(40, [], 0, 2) == 0  # alone: it owns them all
    assert fair_share(12, [10], 0) == 11
    assert surplus(12, [10], 0, 2) == 0
    assert surplus(13, [10], 0, 2) == 0  # 13 = 12 + 1 over: within the margin
    assert surplus(13, [10, 10, 10], 0, 2) == 0  # fair: ceil(43 / 4) = 11
    # The tables it handed over and nobody took yet still count as its share's.
    assert surplus(10, [0], 10, 2) == 0


def test_a_process_over_its_share_hands_over_down_to_it() -> None:
    assert surplus(20, [0], 0, 2) == 10
    assert surplus(21, [0], 0, 1) == 10  # fair: ceil(21 / 2) = 11
    assert surplus(30, [0, 0], 0, 2) == 20
    assert surplus(16, [10, 4], 0, 2) == 6  # fair 10
    assert surplus(25, [5], 10, 2) == 5  # fair ceil(40 / 2) = 20: dead process's tables too


def test_handing_over_surpluses_settles_and_then_nothing_moves() -> None:
    """Processes each hand over their surplus (a batch at a time); the tables handed over go
    to whoever owns the fewest (as the others' scans take them): every spread settles within
    a few periods, each process within its share and margin, and stays so."""
    rng = random.Random(18)
    for _ in range(500):
        owned = [rng.randrange(0, 60) for _ in range(rng.randrange(2, 6))]
        margin, batch = rng.randrange(1, 4), rng.randrange(1, 10)
        total = sum(owned)
        moves: list[int] = []
        for _period in range(200):
            handed = 0
            for i, mine in enumerate(owned):
                others = owned[:i] + owned[i + 1 :]
                give = min(batch, surplus(mine, others, handed, margin))
                owned[i] -= give
                handed += give
            moves.append(handed)
            while handed:
                owned[owned.index(min(owned))] += 1
                handed -= 1
            if len(moves) > 3 and not any(moves[-3:]):
                break
        assert sum(owned) == total
        assert not any(moves[-3:]), f"never settled: {owned}"
        assert max(owned) <= fair_share(owned[0], owned[1:], 0) + margin


def job(
    name: str, log: list[tuple[str, int]]
) -> Callable[[Lease | None], Coroutine[Any, Any, None]]:
    async def work(lease: Lease | None) -> None:
        assert lease is not None
        log.append((name, lease.fence))
        await asyncio.Event().wait()  # runs until it is stopped

    return work


async def test_run_once_runs_in_one_process_at_a_time_and_moves_when_it_stops(
    shared: tuple[Store, Store],
) -> None:
    one, two = shared
    # 3 s, renewed every second: a stall of a loaded two-core machine (half a second and
    # more, seen) must not lose a lease the test holds to be kept.
    a = LeaseOwnership(one, "a", seconds=3.0)
    b = LeaseOwnership(two, "b", seconds=3.0)
    ran: list[tuple[str, int]] = []
    first = a.run_once("matchmaking", job("a", ran))
    await until(lambda: ran == [("a", 1)])
    second = b.run_once("matchmaking", job("b", ran))
    await asyncio.sleep(4.0)  # longer than the lease: a renews it, b keeps waiting
    assert ran == [("a", 1)]
    await first.stop()  # a's process stops: b takes the job over
    await until(lambda: len(ran) == 2)
    assert ran[1] == ("b", 2)
    await second.stop()


async def test_run_once_on_one_process_just_runs() -> None:
    ran: list[Lease | None] = []

    async def work(lease: Lease | None) -> None:
        ran.append(lease)

    once = SoleOwner().run_once("sweep", work)
    await once.task
    assert ran == [None]
