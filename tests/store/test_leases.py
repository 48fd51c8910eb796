"""Leases on every store (memory, SQLite, PostgreSQL): one owner at a time, a fence that grows at
each takeover, and fenced writes that a stalled old owner can no longer make."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from facedown.store import LeaseLost, SequenceConflict, Store, open_store, table_lease

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
    assert [e.seq for e in await store.log("t1")] == [1]
    record = await store.get_table("t1")
    assert record is not None
    assert record.status == "lobby"
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
