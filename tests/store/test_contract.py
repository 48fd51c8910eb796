"""The Store contract, checked the same way on every implementation (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anyio
import pytest

from facedown.store import (
    LogEntry,
    SeatRecord,
    SequenceConflict,
    Store,
    StoreError,
    TableExists,
    TableRecord,
)

pytestmark = pytest.mark.anyio

RULES: dict[str, Any] = {
    "preset": "cabo",
    "hand_size": 4,
    "jokers": 2,
    "call_bonus": -5.5,
    "powers": {"7": "peek", "9": "spy", "J": "swap"},
    "targets": [100, None, True, False],
    "name": "Kivo — ünïcode ♠♥",
}


def table(
    table_id: str = "t1",
    code: str = "abcd",
    status: str = "lobby",
    created_at: float = 1_700_000_000.25,
    **fields: Any,
) -> TableRecord:
    record = TableRecord(
        id=table_id,
        code=code,
        preset="cabo",
        rules=RULES,
        seed=2**62 + 12345,
        host_id="guest-1",
        settings={"rounds": 3, "turn_timer": 30.0, "seats": 4},
        status=status,  # type: ignore[arg-type]
        seats=(
            SeatRecord(0, "human", "Ana", player_id="guest-1"),
            SeatRecord(1, "bot", "Bot", bot_level="hard"),
            SeatRecord(2),
        ),
        created_at=created_at,
        updated_at=created_at,
    )
    return replace(record, **fields)


def entry(seq: int, kind: str = "action", **payload: Any) -> LogEntry:
    return LogEntry(seq, kind, payload or {"action": f"draw {seq}"}, created_at=1_700_000_000 + seq)


async def test_create_then_get_returns_the_record_with_an_upper_case_code(store: Store) -> None:
    record = table(deadline=1_700_000_030.5, deadline_kind="peek")
    await store.create_table(record)
    assert await store.get_table("t1") == replace(record, code="ABCD")


async def test_unknown_tables_are_none(store: Store) -> None:
    assert await store.get_table("nope") is None
    assert await store.find_by_code("NOPE") is None
    assert await store.log("nope") == []


async def test_join_codes_are_case_insensitive(store: Store) -> None:
    await store.create_table(table(code="xY7q"))
    for code in ("XY7Q", "xy7q", "Xy7Q"):
        found = await store.find_by_code(code)
        assert found is not None
        assert found.id == "t1"
        assert found.code == "XY7Q"


async def test_a_taken_id_or_code_is_refused_and_changes_nothing(store: Store) -> None:
    await store.create_table(table())
    with pytest.raises(TableExists, match="id"):
        await store.create_table(table(code="OTHER"))
    with pytest.raises(TableExists, match="code"):
        await store.create_table(table("t2", code="ABCD"))  # codes collide whatever their case
    assert await store.get_table("t2") is None
    assert await store.find_by_code("OTHER") is None
    assert (await store.find_by_code("abcd")) == replace(table(), code="ABCD")


async def test_update_rewrites_the_fields_and_all_seats(store: Store) -> None:
    await store.create_table(table())
    updated = replace(
        table(),
        status="playing",
        settings={"rounds": 5},
        seats=(
            SeatRecord(3, "bot", "Late bot", bot_level="easy"),
            SeatRecord(0, "human", "Ana (back)", player_id="guest-1"),
        ),
        deadline=1_700_000_100.0,
        deadline_kind="turn",
        updated_at=1_700_000_050.0,
    )
    await store.update_table(updated)
    got = await store.get_table("t1")
    # Seats come back in seat order; seat 1 and 2 are gone.
    assert got == replace(updated, code="ABCD", seats=tuple(reversed(updated.seats)))

    await store.update_table(replace(updated, seats=(), deadline=None, deadline_kind=None))
    got = await store.get_table("t1")
    assert got is not None
    assert got.seats == ()
    assert got.deadline is None


async def test_update_keeps_id_code_and_creation_time(store: Store) -> None:
    await store.create_table(table())
    await store.update_table(replace(table(), code="ZZZZ", created_at=5.0, status="playing"))
    got = await store.find_by_code("abcd")
    assert got is not None
    assert got.created_at == table().created_at
    assert got.status == "playing"
    assert await store.find_by_code("ZZZZ") is None


async def test_updating_an_unknown_table_fails(store: Store) -> None:
    with pytest.raises(StoreError, match="no table"):
        await store.update_table(table("ghost"))
    assert await store.get_table("ghost") is None


async def test_update_settings_writes_the_settings_and_nothing_else(store: Store) -> None:
    await store.create_table(table())
    playing = replace(table(), status="playing", updated_at=1_700_000_050.0)
    await store.update_table(playing)
    settings = {"rounds": 3, "moment_over": {"seq": 7, "seats": [0, 2]}, "name": "ünï ♠"}
    await store.update_settings("t1", settings)
    got = await store.get_table("t1")
    # The settings changed; updated_at, the status and the seats are as stored.
    assert got == replace(playing, code="ABCD", settings=settings)
    settings["rounds"] = 9  # the store kept its own copy
    again = await store.get_table("t1")
    assert again is not None
    assert again.settings["rounds"] == 3


async def test_update_settings_of_an_unknown_table_or_not_json_is_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="no table"):
        await store.update_settings("ghost", {"rounds": 3})
    assert await store.get_table("ghost") is None
    await store.create_table(table())
    with pytest.raises(StoreError, match="settings"):
        await store.update_settings("t1", {"turn_timer": float("nan")})
    assert await store.get_table("t1") == replace(table(), code="ABCD")


async def test_a_seat_twice_is_refused_and_changes_nothing(store: Store) -> None:
    await store.create_table(table())
    with pytest.raises(StoreError, match="seat"):
        await store.update_table(replace(table(), seats=(SeatRecord(1), SeatRecord(1))))
    with pytest.raises(StoreError, match="seat"):
        await store.create_table(table("t2", code="T2", seats=(SeatRecord(0), SeatRecord(0))))
    assert await store.get_table("t1") == replace(table(), code="ABCD")
    assert await store.get_table("t2") is None


async def test_the_log_comes_back_in_seq_order_after_a_given_seq(store: Store) -> None:
    await store.create_table(table())
    for seq in (1, 2, 4, 3, 5):  # applied order is by seq, whatever the write order
        await store.append("t1", entry(seq))
    assert await store.log("t1") == [entry(seq) for seq in (1, 2, 3, 4, 5)]
    assert await store.log("t1", after=3) == [entry(4), entry(5)]
    assert await store.log("t1", after=5) == []


async def test_logs_are_per_table(store: Store) -> None:
    await store.create_table(table())
    await store.create_table(table("t2", code="EFGH"))
    await store.append("t1", entry(1, "start"))
    await store.append("t2", entry(1, "seat", seat=2))
    assert await store.log("t1") == [entry(1, "start")]
    assert await store.log("t2") == [entry(1, "seat", seat=2)]


async def test_a_taken_seq_raises_sequence_conflict_and_keeps_the_first(store: Store) -> None:
    await store.create_table(table())
    await store.append("t1", entry(1, action="draw"))
    with pytest.raises(SequenceConflict):
        await store.append("t1", entry(1, action="tap 2"))
    assert await store.log("t1") == [entry(1, action="draw")]


async def test_racing_writers_of_one_seq_have_exactly_one_winner(store: Store) -> None:
    await store.create_table(table())
    outcomes: list[str] = []

    async def write(n: int) -> None:
        try:
            await store.append("t1", entry(1, writer=n))
            outcomes.append("won")
        except SequenceConflict:
            outcomes.append("conflict")

    async with anyio.create_task_group() as tasks:
        for n in range(8):
            tasks.start_soon(write, n)
    assert sorted(outcomes) == ["conflict"] * 7 + ["won"]
    assert len(await store.log("t1")) == 1


async def test_appending_to_an_unknown_table_fails_without_a_conflict(store: Store) -> None:
    with pytest.raises(StoreError, match="no table") as raised:
        await store.append("ghost", entry(1))
    assert not isinstance(raised.value, SequenceConflict)


async def test_active_tables_are_those_in_the_lobby_or_playing(store: Store) -> None:
    for n, status in enumerate(["playing", "finished", "lobby", "closed"]):
        # Created out of id order, to check the order is by creation time.
        await store.create_table(table(f"t{9 - n}", f"C{n}", status, created_at=100.0 + n))
    assert [t.id for t in await store.active_tables()] == ["t9", "t7"]

    t9 = await store.get_table("t9")
    assert t9 is not None
    await store.update_table(replace(t9, status="finished"))
    active = await store.active_tables()
    assert [t.id for t in active] == ["t7"]
    assert active[0] == replace(table("t7", "C2", "lobby", created_at=102.0), code="C2")


async def test_json_round_trips_as_json_does(store: Store) -> None:
    payload = {
        "action": "swap 0 1:2",
        "nested": {"list": [1, 2.5, "x", None, [True]], "empty": {}},
        "tuple": (1, 2),  # JSON has no tuples: it comes back as a list
        "big": 2**53 + 1,
        "tiny": 1e-300,
    }
    await store.create_table(table(settings={"timers": {"peek": 10, "turn": None}, "t": (3,)}))
    await store.append("t1", LogEntry(1, "action", payload, created_at=0.0))
    got = await store.get_table("t1")
    assert got is not None
    assert got.rules == RULES
    assert got.settings == {"timers": {"peek": 10, "turn": None}, "t": [3]}
    [logged] = await store.log("t1")
    assert logged.payload == {**payload, "tuple": [1, 2]}
    assert list(logged.payload) == list(payload)  # key order survives too


async def test_values_json_cannot_hold_are_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="not JSON"):
        await store.create_table(table(settings={"timer": float("nan")}))
    with pytest.raises(StoreError, match="not JSON"):
        await store.create_table(table(rules={"x": object()}))
    assert await store.get_table("t1") is None
    await store.create_table(table())
    with pytest.raises(StoreError, match="not JSON"):
        await store.append("t1", LogEntry(1, "action", {"x": float("inf")}))
    assert await store.log("t1") == []


async def test_seeds_hold_128_bits_and_the_old_signed_64_bit_range(store: Store) -> None:
    await store.create_table(table("lo", "LO", seed=-(2**63)))
    await store.create_table(table("hi", "HI", seed=2**63 - 1))
    await store.create_table(table("wide", "WIDE", seed=2**128 - 1))
    lo, hi = await store.get_table("lo"), await store.get_table("hi")
    wide = await store.get_table("wide")
    assert lo is not None
    assert lo.seed == -(2**63)
    assert hi is not None
    assert hi.seed == 2**63 - 1
    assert wide is not None
    assert wide.seed == 2**128 - 1
    await store.update_table(replace(wide, seed=2**127 + 3))  # an update writes it whole too
    wide = await store.get_table("wide")
    assert wide is not None
    assert wide.seed == 2**127 + 3
    with pytest.raises(StoreError, match="128 bits"):
        await store.create_table(table("big", "BIG", seed=2**128))
    with pytest.raises(StoreError, match="128 bits"):
        await store.create_table(table("neg", "NEG", seed=-(2**63) - 1))


async def test_a_seq_must_be_positive(store: Store) -> None:
    await store.create_table(table())
    with pytest.raises(StoreError, match="seq"):
        await store.append("t1", entry(0))


async def test_returned_records_are_copies(store: Store) -> None:
    await store.create_table(table())
    await store.append("t1", entry(1))
    got = await store.get_table("t1")
    assert got is not None
    got.rules["hand_size"] = 99
    got.settings.clear()
    (await store.log("t1"))[0].payload["action"] = "changed"
    assert await store.get_table("t1") == replace(table(), code="ABCD")
    assert await store.log("t1") == [entry(1)]


async def test_a_closed_store_refuses_calls(store: Store) -> None:
    await store.close()
    with pytest.raises(StoreError, match="closed"):
        await store.get_table("t1")
    with pytest.raises(StoreError, match="closed"):
        await store.append("t1", entry(1))
    await store.close()  # closing twice is harmless


async def test_concurrent_writes_each_get_their_own_outcome(store: Store) -> None:
    # On SQLite these share one transaction (group commit); a refused write must not take its
    # neighbours down with it.
    await store.create_table(table())
    await store.append("t1", entry(1))
    playing = replace(table(), status="playing")
    results: dict[str, str] = {}

    async def attempt(name: str, write: Any) -> None:
        try:
            await write
            results[name] = "ok"
        except SequenceConflict:
            results[name] = "conflict"
        except TableExists:
            results[name] = "exists"
        except StoreError:
            results[name] = "error"

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(attempt, "append 2", store.append("t1", entry(2)))
        tasks.start_soon(attempt, "append 1 again", store.append("t1", entry(1, action="x")))
        tasks.start_soon(attempt, "append to a ghost", store.append("ghost", entry(1)))
        tasks.start_soon(attempt, "create t2", store.create_table(table("t2", "EFGH")))
        tasks.start_soon(attempt, "create t1 again", store.create_table(table()))
        tasks.start_soon(attempt, "update t1", store.update_table(playing))
        tasks.start_soon(attempt, "update a ghost", store.update_table(table("ghost", "GG")))
        tasks.start_soon(attempt, "append 3", store.append("t1", entry(3)))
    assert results == {
        "append 2": "ok",
        "append 1 again": "conflict",
        "append to a ghost": "error",
        "create t2": "ok",
        "create t1 again": "exists",
        "update t1": "ok",
        "update a ghost": "error",
        "append 3": "ok",
    }
    assert await store.log("t1") == [entry(1), entry(2), entry(3)]
    t1, t2 = await store.get_table("t1"), await store.get_table("t2")
    assert t1 is not None
    assert t1.status == "playing"
    assert t2 is not None
    assert await store.get_table("ghost") is None


async def test_append_and_update_writes_the_entry_and_the_record_together(store: Store) -> None:
    await store.create_table(table())
    playing = replace(table(), status="playing", deadline=1_700_000_020.0, updated_at=5.0)
    await store.append_and_update(playing, entry(1, "start", match=1))
    assert await store.log("t1") == [entry(1, "start", match=1)]
    assert await store.get_table("t1") == replace(playing, code="ABCD")
    assert [t.id for t in await store.active_tables()] == ["t1"]


async def test_a_refused_append_and_update_changes_neither(store: Store) -> None:
    await store.create_table(table())
    await store.append("t1", entry(1, "start", match=1))
    finished = replace(table(), status="finished", seats=())
    with pytest.raises(SequenceConflict):
        await store.append_and_update(finished, entry(1, "action", action="call"))
    assert await store.log("t1") == [entry(1, "start", match=1)]
    assert await store.get_table("t1") == replace(table(), code="ABCD")  # not finished
    with pytest.raises(StoreError, match="seat"):  # a bad record: the entry is not kept either
        await store.append_and_update(
            replace(table(), seats=(SeatRecord(1), SeatRecord(1))), entry(2)
        )
    assert await store.log("t1") == [entry(1, "start", match=1)]
    with pytest.raises(StoreError, match="no table") as raised:
        await store.append_and_update(table("ghost", "GG"), entry(1))
    assert not isinstance(raised.value, SequenceConflict)
    assert await store.get_table("ghost") is None


async def test_concurrent_append_and_updates_each_get_their_own_outcome(store: Store) -> None:
    # On SQLite these share one transaction: the refused one must leave no half behind.
    await store.create_table(table())
    await store.create_table(table("t2", "EFGH"))
    await store.append("t1", entry(1))
    outcomes: dict[str, str] = {}

    async def attempt(name: str, record: TableRecord, logged: LogEntry) -> None:
        try:
            await store.append_and_update(record, logged)
            outcomes[name] = "ok"
        except SequenceConflict:
            outcomes[name] = "conflict"

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(attempt, "t1 taken", replace(table(), status="finished"), entry(1))
        tasks.start_soon(attempt, "t2", replace(table("t2", "EFGH"), status="playing"), entry(1))
        tasks.start_soon(attempt, "t1 next", replace(table(), status="playing"), entry(2))
    assert outcomes == {"t1 taken": "conflict", "t2": "ok", "t1 next": "ok"}
    t1, t2 = await store.get_table("t1"), await store.get_table("t2")
    assert t1 is not None
    assert t1.status == "playing"
    assert t2 is not None
    assert t2.status == "playing"
    assert await store.log("t1") == [entry(1), entry(2)]
    assert await store.log("t2") == [entry(1)]


async def test_broken_tables_keep_why_and_are_not_active(store: Store) -> None:
    for n, status in enumerate(["playing", "broken", "lobby", "broken"]):
        await store.create_table(table(f"t{9 - n}", f"C{n}", status, created_at=100.0 + n))
    t7 = await store.get_table("t7")
    assert t7 is not None
    assert t7.damage is None
    damage = "KeyError: 'grandmaster' — no such bot"
    await store.update_table(replace(t7, status="broken", damage=damage))
    assert [t.id for t in await store.active_tables()] == ["t9"]
    broken = await store.broken_tables()
    assert [t.id for t in broken] == ["t8", "t7", "t6"]
    assert broken[1].damage == damage
    assert broken[0].damage is None


async def test_token_floors_are_kept_and_only_rise(store: Store) -> None:
    assert await store.token_floors() == {}
    await store.set_token_floor("guest-1", 1_700_000_000_123)
    await store.set_token_floor("guest-2", 5)
    await store.set_token_floor("guest-1", 1_700_000_000_100)  # lower: changes nothing
    assert await store.token_floors() == {"guest-1": 1_700_000_000_123, "guest-2": 5}
    await store.set_token_floor("guest-2", 2**62)
    assert (await store.token_floors())["guest-2"] == 2**62
    for player, floor in (("", 1), ("guest-3", -1), ("guest-3", 2**63)):
        with pytest.raises(StoreError):
            await store.set_token_floor(player, floor)
    assert set(await store.token_floors()) == {"guest-1", "guest-2"}
