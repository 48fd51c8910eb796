"""Leases on every store (memory, SQLite, PostgreSQL): one owner at a time, a fence that grows at
each takeover, and fenced writes that a stalled old owner can no longer make."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import replace

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from facedown.server.cluster.ownership import LeaseOwnership
from facedown.store import (
    Lease,
    LeaseBusy,
    LeaseLost,
    SequenceConflict,
    Store,
    make_engine,
    open_store,
    table_lease,
)
from facedown.store.database import IDLE_IN_TRANSACTION_SECONDS

from .test_contract import entry, table

pytestmark = pytest.mark.anyio

NAME = table_lease("t1")
LONG = 60.0  # seconds: held for the whole test
GONE = 0.0  # seconds: expired as soon as it is taken


async def test_a_free_lease_is_taken_with_fence_one_and_refused_to_another_owner(
    store: Store,
) -> None:
    lease = await store.take_lease(NAME, "a", LONG)
    assert lease is not None
    assert (lease.name, lease.owner, lease.fence) == (NAME, "a", 1)
    assert await store.take_lease(NAME, "b", LONG) is None
    stored = await store.get_lease(NAME)
    assert stored is not None
    assert stored[0].owner == "a"
    assert stored[1] is True  # valid


async def test_the_owner_renews_by_taking_again_and_keeps_its_fence(store: Store) -> None:
    first = await store.take_lease(NAME, "a", GONE)
    again = await store.take_lease(NAME, "a", LONG)
    assert first is not None
    assert again is not None
    assert again.fence == first.fence == 1
    assert again.expires_at > first.expires_at


async def test_an_expired_lease_is_taken_over_with_a_higher_fence(store: Store) -> None:
    old = await store.take_lease(NAME, "a", GONE)
    new = await store.take_lease(NAME, "b", LONG)
    assert old is not None
    assert new is not None
    assert (new.owner, new.fence) == ("b", old.fence + 1)
    stored = await store.get_lease(NAME)
    assert stored is not None
    assert stored[0] == new


async def test_a_write_with_a_lease_taken_over_is_refused_and_changes_nothing(
    store: Store,
) -> None:
    await store.create_table(table())
    old = await store.take_lease(NAME, "a", GONE)
    assert old is not None
    await store.append("t1", entry(1), lease=old)  # expired, but nobody took it: still its own
    new = await store.take_lease(NAME, "b", LONG)
    assert new is not None
    with pytest.raises(LeaseLost):
        await store.append("t1", entry(2), lease=old)
    with pytest.raises(LeaseLost):
        await store.append_and_update(replace(table(), status="playing"), entry(2), lease=old)
    with pytest.raises(LeaseLost):
        await store.update_table(replace(table(), status="closed"), lease=old)
    with pytest.raises(LeaseLost):
        await store.update_settings("t1", {"moment_over": {"seq": 1, "seats": [0]}}, lease=old)
    assert [e.seq for e in await store.log("t1")] == [1]
    record = await store.get_table("t1")
    assert record is not None
    assert record.status == "lobby"
    assert record.settings == table().settings
    await store.update_settings("t1", {"moment_over": {"seq": 1, "seats": [0]}}, lease=new)
    record = await store.get_table("t1")
    assert record is not None
    assert record.settings == {"moment_over": {"seq": 1, "seats": [0]}}
    await store.append_and_update(replace(table(), status="playing"), entry(2), lease=new)
    assert [e.seq for e in await store.log("t1")] == [1, 2]


async def test_renewal_extends_only_the_leases_still_held(store: Store) -> None:
    a1 = await store.take_lease(table_lease("t1"), "a", GONE)
    a2 = await store.take_lease(table_lease("t2"), "a", LONG)
    assert a1 is not None
    assert a2 is not None
    assert await store.take_lease(table_lease("t1"), "b", LONG) is not None
    names = [table_lease("t1"), table_lease("t2"), table_lease("t3")]
    assert await store.renew_leases("a", names, LONG) == {table_lease("t2")}
    assert await store.renew_leases("a", [], LONG) == set()


async def test_a_released_lease_is_free_at_once_for_another_owner(store: Store) -> None:
    assert await store.take_lease(NAME, "a", LONG) is not None
    await store.release_leases("a", [NAME])
    taken = await store.take_lease(NAME, "b", LONG)
    assert taken is not None
    assert taken.fence == 2
    await store.release_leases("a", [NAME])  # not a's any more: nothing changes
    assert await store.take_lease(NAME, "c", LONG) is None


async def test_unowned_tables_are_the_active_ones_without_a_valid_lease(store: Store) -> None:
    await store.create_table(table("t1", "aaaa", created_at=1.0))
    await store.create_table(table("t2", "bbbb", created_at=2.0))
    await store.create_table(table("t3", "cccc", created_at=3.0, status="playing"))
    await store.create_table(table("t4", "dddd", created_at=4.0, status="finished"))
    assert await store.unowned_tables(10) == ["t1", "t2", "t3"]
    assert await store.take_lease(table_lease("t1"), "a", LONG) is not None
    assert await store.take_lease(table_lease("t2"), "a", GONE) is not None
    assert await store.unowned_tables(10) == ["t2", "t3"]
    assert await store.unowned_tables(1) == ["t2"]


async def test_concurrent_takeovers_on_postgresql_have_one_winner(postgres_url: str) -> None:
    """Processes racing for one expired lease, each on its own connection: one wins, and the
    write of every loser, and of the old owner, is refused."""
    stores = [await open_store(postgres_url) for _ in range(4)]
    try:
        await stores[0].create_table(table())
        old = await stores[0].take_lease(NAME, "old", GONE)
        assert old is not None
        taken = await asyncio.gather(
            *(s.take_lease(NAME, f"p{i}", LONG) for i, s in enumerate(stores))
        )
        winners = [lease for lease in taken if lease is not None]
        assert len(winners) == 1
        assert winners[0].fence == 2
        results = await asyncio.gather(
            stores[1].append("t1", entry(1), lease=old),
            stores[2].append("t1", entry(1), lease=winners[0]),
            return_exceptions=True,
        )
        assert isinstance(results[0], LeaseLost)
        assert results[1] is None
        assert [e.seq for e in await stores[3].log("t1")] == [1]
    finally:
        for s in stores:
            await s.close()


async def test_the_cluster_id_is_made_once_and_kept(store: Store) -> None:
    first = await store.cluster_id()
    assert first == await store.cluster_id()


async def test_a_fenced_entry_reads_back_as_written(store: Store) -> None:
    await store.create_table(table())
    lease = await store.take_lease(NAME, "a", LONG)
    assert lease is not None
    written = entry(1, note="ünï ♠", nested={"a": [1, 2.5, None, True]})
    await store.append("t1", written, lease=lease)
    [back] = await store.log("t1")
    assert back == written
    with pytest.raises(SequenceConflict):
        await store.append("t1", entry(1), lease=lease)


async def test_a_lease_that_ran_out_is_not_renewed(store: Store) -> None:
    """A process that resumes after its lease ran out lets the table go rather than renew it,
    even when nobody took it meanwhile: its renewal finds it gone, and another takes it."""
    assert await store.take_lease(NAME, "a", GONE) is not None
    assert await store.renew_leases("a", [NAME], LONG) == set()
    taken = await store.take_lease(NAME, "b", LONG)
    assert taken is not None
    assert (taken.owner, taken.fence) == ("b", 2)


async def _stalled_write(url: str, owner: str, names: list[str]) -> AsyncConnection:
    """What an owner stopped between its fenced write and its commit leaves behind: a session
    of the server's own engine inside a transaction that locked the leases' rows."""
    engine = make_engine(url)
    connection = await engine.connect()
    await connection.begin()
    for name in names:
        await connection.execute(
            text("UPDATE leases SET fence = fence WHERE name = :name AND owner = :owner"),
            {"name": name, "owner": owner},
        )
    return connection


async def _taken_once_free(store: Store, name: str) -> Lease:
    """Try the takeover until the database has ended the stalled transaction."""
    for _ in range(300):  # about 30 s: a bound on a hang, the database ends it in about 2
        try:
            lease = await store.take_lease(name, "new", LONG)
        except LeaseBusy:
            await asyncio.sleep(0.1)
            continue
        assert lease is not None
        return lease
    raise AssertionError("the stalled transaction was never ended")


async def test_a_takeover_never_waits_on_a_stalled_owners_open_write(postgres_url: str) -> None:
    store = await open_store(postgres_url)
    stalled = None
    try:
        await store.create_table(table())
        assert await store.take_lease(NAME, "old", 0.3) is not None
        stalled = await _stalled_write(postgres_url, "old", [NAME])
        await asyncio.sleep(0.4)  # the old owner's lease has run out; its row is still locked
        # The takeover reports the lock at once instead of waiting for the stall to end (the
        # wait_for is only a bound on a hang: without the lock timeout it would block).
        with pytest.raises(LeaseBusy):
            await asyncio.wait_for(store.take_lease(NAME, "new", LONG), 30)
        # The database ends the stalled session; the takeover then goes through, fenced.
        taken = await _taken_once_free(store, NAME)
        assert taken.fence == 2
        # The stalled owner, resumed, cannot commit: its session was ended.
        with pytest.raises(DBAPIError):
            await stalled.commit()
    finally:
        if stalled is not None:
            with contextlib.suppress(DBAPIError):
                await stalled.close()
            await stalled.engine.dispose()
        await store.close()


async def test_a_stalled_owners_tables_are_taken_over_each_on_its_own(postgres_url: str) -> None:
    """Two orphaned tables of one stalled owner, one of them locked by its open write: the other
    is taken at once, without waiting for the locked one."""
    store = await open_store(postgres_url)
    stalled = None
    try:
        for i in (1, 2):
            await store.create_table(table(f"t{i}", f"cod{i}"))
            assert await store.take_lease(table_lease(f"t{i}"), "old", 0.3) is not None
        stalled = await _stalled_write(postgres_url, "old", [table_lease("t1")])
        await asyncio.sleep(0.4)
        ownership = LeaseOwnership(store, "new", seconds=LONG, alive=lambda _node: False)
        locked = asyncio.ensure_future(ownership.claim("t1"))
        free = await asyncio.wait_for(ownership.claim("t2"), 30)  # a bound on a hang only
        assert free.held
        assert not locked.done()  # still held up by the stalled write, and t2 did not wait
        claimed = await asyncio.wait_for(locked, 30)
        assert claimed.held
        assert claimed.lease is not None
        assert claimed.lease.fence == 2
    finally:
        if stalled is not None:
            with contextlib.suppress(DBAPIError):
                await stalled.close()
            await stalled.engine.dispose()
        await store.close()


async def test_a_migration_that_pauses_longer_than_a_stalled_write_may_is_not_ended(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound that ends a stalled write's transaction (2 s) does not end the schema
    migration's, which pauses between statements while Alembic loads its scripts: over 2 s on
    a loaded machine (it once made a cluster test fail, the migration ended by PostgreSQL)."""
    real = ScriptDirectory.from_config

    def slow(config: Config) -> ScriptDirectory:  # a loaded machine: the scripts load slowly
        time.sleep(IDLE_IN_TRANSACTION_SECONDS + 0.5)  # the process stalls
        return real(config)

    monkeypatch.setattr(ScriptDirectory, "from_config", slow)
    store = await open_store(postgres_url)
    try:
        await store.create_table(table())
        assert await store.take_lease(NAME, "a", LONG) is not None
    finally:
        await store.close()
