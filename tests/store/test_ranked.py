"""Ranked play's part of the store contract, on every store (memory, SQLite, PostgreSQL): the
queues, ranked matches made (fenced by the matchmaker's lease) and rated once, the leaderboard,
the recent waits."""

from __future__ import annotations

from typing import cast

import pytest

from facedown.store import (
    LeaseLost,
    QueueChanged,
    QueueEntry,
    RankedMatchRecord,
    RankedSeat,
    RankedStore,
    RatingRecord,
    SeatRecord,
    Store,
    StoreError,
    TableExists,
    TableRecord,
)

from .test_accounts import user
from .test_contract import table

pytestmark = pytest.mark.anyio


async def accounts(store: Store, *names: str) -> RankedStore:
    for name in names:
        await store.create_user(user(f"u-{name}", name, f"p-{name}"))
    return cast(RankedStore, store)


def rating(user_id: str, queue: str, mu: float, matches: int = 1) -> RatingRecord:
    return RatingRecord(user_id, queue, mu, 5.0, mu - 15.0, matches, 10.0)


def ranked_table(table_id: str, code: str, *users: str) -> RankedMatchRecord:
    seats = tuple(RankedSeat(i, u, 3.0 + i) for i, u in enumerate(users))
    return RankedMatchRecord(table_id, "cabo-2", 100.0, seats)


def seated(table_id: str, code: str, *users: str) -> TableRecord:
    seats = tuple(SeatRecord(i, "human", u, f"p-{u}") for i, u in enumerate(users))
    return table(table_id, code, seats=seats, host_id="ranked")


async def test_one_queue_at_a_time_and_a_place_kept(store: Store) -> None:
    ranked = await accounts(store, "ann", "bob")
    await ranked.enqueue("u-ann", "cabo-2", 1.0)
    await ranked.enqueue("u-bob", "cabo-2", 2.0)
    await ranked.enqueue("u-ann", "cabo-2", 5.0)  # again: keeps its place
    assert await ranked.queue_entries("cabo-2") == [
        QueueEntry("u-ann", "cabo-2", 1.0, 1.0),
        QueueEntry("u-bob", "cabo-2", 2.0, 2.0),
    ]
    await ranked.enqueue("u-ann", "kivo-4", 6.0)  # another queue: leaves the first
    assert await ranked.queue_entry("u-ann") == QueueEntry("u-ann", "kivo-4", 6.0, 6.0)
    assert await ranked.waiting() == {"cabo-2": 1, "kivo-4": 1}
    assert await ranked.dequeue("u-ann") is True
    assert await ranked.dequeue("u-ann") is False
    assert await ranked.queue_entry("u-ann") is None
    with pytest.raises(StoreError):
        await ranked.enqueue("u-nobody", "cabo-2", 1.0)


async def test_a_player_whose_page_is_gone_is_taken_out(store: Store) -> None:
    ranked = await accounts(store, "ann", "bob", "cy")
    for name in ["ann", "bob", "cy"]:
        await ranked.enqueue(f"u-{name}", "cabo-2", 1.0)
    await ranked.enqueue("u-cy", "kivo-2", 1.0)
    await ranked.touch_queue("u-bob", 20.0)
    await ranked.touch_queue("u-nobody", 20.0)  # waits nowhere: nothing happens
    assert await ranked.drop_unseen("cabo-2", before=10.0) == ["u-ann"]
    assert [(e.user_id, e.seen_at) for e in await ranked.queue_entries("cabo-2")] == [
        ("u-bob", 20.0)
    ]
    assert [e.user_id for e in await ranked.queue_entries("kivo-2")] == ["u-cy"]  # another queue


async def test_a_match_fenced_by_a_lease_taken_over_is_refused_and_writes_nothing(
    store: Store,
) -> None:
    ranked = await accounts(store, "ann", "bob", "cy", "dee")
    for i, name in enumerate(["ann", "bob", "cy", "dee"]):
        await ranked.enqueue(f"u-{name}", "cabo-2", float(i))
    old = await store.take_lease("once:ranked", "one", 0.0)  # expired as soon as taken
    assert old is not None
    # Expired, but nobody took it over: its holder's match is still made.
    await ranked.create_ranked_match(
        seated("t1", "rank1", "u-ann", "u-bob"),
        ranked_table("t1", "R1", "u-ann", "u-bob"),
        lease=old,
    )
    new = await store.take_lease("once:ranked", "two", 60.0)
    assert new is not None
    assert new.fence == old.fence + 1
    with pytest.raises(LeaseLost):  # the stalled old holder makes no match
        await ranked.create_ranked_match(
            seated("t2", "rank2", "u-cy", "u-dee"),
            ranked_table("t2", "R2", "u-cy", "u-dee"),
            lease=old,
        )
    assert await store.get_table("t2") is None
    assert await ranked.ranked_match("t2") is None
    assert [e.user_id for e in await ranked.queue_entries("cabo-2")] == ["u-cy", "u-dee"]
    await ranked.create_ranked_match(  # the new holder's is
        seated("t2", "rank2", "u-cy", "u-dee"),
        ranked_table("t2", "R2", "u-cy", "u-dee"),
        lease=new,
    )
    assert await ranked.queue_entries("cabo-2") == []
    assert sorted(m.table_id for m in await ranked.unrated_matches()) == ["t1", "t2"]


async def test_a_match_takes_its_players_out_of_the_queue_with_its_table(store: Store) -> None:
    ranked = await accounts(store, "ann", "bob", "cy")
    for i, name in enumerate(["ann", "bob", "cy"]):
        await ranked.enqueue(f"u-{name}", "cabo-2", float(i))
    record = seated("t1", "rank1", "u-ann", "u-bob")
    match = ranked_table("t1", "RANK1", "u-ann", "u-bob")
    await ranked.create_ranked_match(record, match)
    assert await ranked.queue_entries("cabo-2") == [QueueEntry("u-cy", "cabo-2", 2.0, 2.0)]
    assert (await store.get_table("t1")) is not None
    assert await ranked.ranked_match("t1") == match
    assert await ranked.unrated_matches() == [match]
    assert await ranked.unrated_matches("u-bob") == [match]
    assert await ranked.unrated_matches("u-cy") == []
    assert await ranked.recent_waits("cabo-2", 10) == [3.0, 4.0]


async def test_a_match_of_players_no_longer_waiting_writes_nothing(store: Store) -> None:
    ranked = await accounts(store, "ann", "bob")
    await ranked.enqueue("u-ann", "cabo-2", 1.0)
    await ranked.enqueue("u-bob", "kivo-2", 1.0)  # waits elsewhere
    record = seated("t1", "rank1", "u-ann", "u-bob")
    with pytest.raises(QueueChanged):
        await ranked.create_ranked_match(record, ranked_table("t1", "R", "u-ann", "u-bob"))
    assert await store.get_table("t1") is None
    assert await ranked.ranked_match("t1") is None
    assert [e.user_id for e in await ranked.queue_entries("cabo-2")] == ["u-ann"]
    # A taken code: nothing either, and both still wait.
    await ranked.enqueue("u-bob", "cabo-2", 2.0)
    await store.create_table(table("t0", "rank1"))
    with pytest.raises(TableExists):
        await ranked.create_ranked_match(record, ranked_table("t1", "R", "u-ann", "u-bob"))
    assert await ranked.ranked_match("t1") is None
    assert len(await ranked.queue_entries("cabo-2")) == 2


async def test_a_match_is_rated_once_and_the_leaderboard_follows(store: Store) -> None:
    ranked = await accounts(store, "ann", "bob", "cy")
    for name in ["ann", "bob"]:
        await ranked.enqueue(f"u-{name}", "cabo-2", 1.0)
    await ranked.create_ranked_match(
        seated("t1", "rank1", "u-ann", "u-bob"),
        ranked_table("t1", "R", "u-ann", "u-bob"),
    )
    new = [rating("u-ann", "cabo-2", 27.0), rating("u-bob", "cabo-2", 23.0)]
    result = {"places": [1, 2]}
    assert await ranked.rate_match("t1", 50.0, result, new) is True
    again = [rating("u-ann", "cabo-2", 99.0), rating("u-bob", "cabo-2", 99.0)]
    assert await ranked.rate_match("t1", 51.0, result, again) is False  # once
    rated = await ranked.ranked_match("t1")
    assert rated is not None
    assert (rated.rated_at, rated.result) == (50.0, result)
    assert await ranked.unrated_matches() == []
    assert await ranked.rate_match("no-such-table", 50.0, result, new) is False
    # A rating of another queue, and one that replaces (rated again in a later match).
    await ranked.enqueue("u-cy", "kivo-2", 1.0)
    await ranked.create_ranked_match(
        seated("t2", "rank2", "u-cy", "u-ann"),
        RankedMatchRecord("t2", "kivo-2", 101.0, (RankedSeat(0, "u-cy", 1.0),)),
    )
    await ranked.rate_match("t2", 60.0, result, [rating("u-cy", "cabo-2", 30.0, matches=4)])
    board = await ranked.leaderboard("cabo-2", 10)
    assert [(r.name, r.mu) for r in board] == [("cy", 30.0), ("ann", 27.0), ("bob", 23.0)]
    assert [r.name for r in await ranked.leaderboard("cabo-2", 1, offset=1)] == ["ann"]
    assert await ranked.rated_players("cabo-2") == 3
    assert await ranked.rated_players("kivo-2") == 0
    assert [r.queue for r in await ranked.ratings_of("u-cy")] == ["cabo-2"]
    assert [r.user_id for r in await ranked.ratings_in("cabo-2", ["u-bob", "u-cy"])] == [
        "u-bob",
        "u-cy",
    ]
    # The queue shows each waiting player's rating there.
    await ranked.enqueue("u-ann", "cabo-2", 70.0)
    [entry] = await ranked.queue_entries("cabo-2")
    assert (entry.mu, entry.sigma) == (27.0, 5.0)


async def test_the_rated_matches_of_a_player_since_a_time(store: Store) -> None:
    """What the cap per opponent reads (server/play/ranked.py): a player's rated matches of one
    queue rated at or after a time, oldest first; unrated ones and other queues left out."""
    ranked = await accounts(store, "ann", "bob", "cy")
    for i, (table_id, pair) in enumerate([("t1", ("ann", "bob")), ("t2", ("ann", "cy"))]):
        for name in pair:
            await ranked.enqueue(f"u-{name}", "cabo-2", 1.0)
        users = [f"u-{name}" for name in pair]
        await ranked.create_ranked_match(
            seated(table_id, f"rank{i}", *users), ranked_table(table_id, f"R{i}", *users)
        )
    await ranked.rate_match("t1", 50.0, {"n": 1}, [rating("u-ann", "cabo-2", 26.0)])
    assert [m.table_id for m in await ranked.rated_matches("u-ann", "cabo-2", 0.0)] == ["t1"]
    await ranked.rate_match("t2", 60.0, {"n": 2}, [rating("u-ann", "cabo-2", 27.0)])
    found = await ranked.rated_matches("u-ann", "cabo-2", 50.0)
    assert [(m.table_id, m.result) for m in found] == [("t1", {"n": 1}), ("t2", {"n": 2})]
    assert [m.table_id for m in await ranked.rated_matches("u-ann", "cabo-2", 55.0)] == ["t2"]
    assert [m.table_id for m in await ranked.rated_matches("u-bob", "cabo-2", 0.0)] == ["t1"]
    assert await ranked.rated_matches("u-ann", "kivo-2", 0.0) == []
    assert await ranked.rated_matches("u-cy", "cabo-2", 61.0) == []
