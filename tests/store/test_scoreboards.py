"""The scoreboard store contract, on every implementation (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

from dataclasses import replace

import anyio
import pytest

from facedown.store import (
    RevisionConflict,
    ScoreboardRecord,
    ScoreboardStore,
    StoreError,
    TableExists,
)

pytestmark = pytest.mark.anyio

ROUND = {"hand_totals": [12, -2, 7], "caller": 1, "moon": -1}


def board(board_id: str = "b" * 64, view_key: str = "view-1") -> ScoreboardRecord:
    return ScoreboardRecord(
        id=board_id,
        view_key=view_key,
        names=("Ana", "Bö", "Cy ♠"),
        preset="cabo",
        options={"rounds": 3},
        placement={"points": [5, 2, 0], "rounds": 4},
        created_at=1_700_000_000.5,
        updated_at=1_700_000_000.5,
    )


async def test_a_board_comes_back_by_id_and_by_view_key(store: ScoreboardStore) -> None:
    record = board()
    await store.create_scoreboard(record)
    assert await store.get_scoreboard(record.id) == record
    assert await store.find_scoreboard("view-1") == record
    assert await store.get_scoreboard("other") is None
    assert await store.find_scoreboard("VIEW-1") is None  # view keys are case-sensitive


async def test_a_taken_id_or_view_key_is_refused(store: ScoreboardStore) -> None:
    await store.create_scoreboard(board())
    with pytest.raises(TableExists):
        await store.create_scoreboard(board(view_key="view-2"))
    with pytest.raises(TableExists):
        await store.create_scoreboard(board(board_id="c" * 64))
    assert await store.find_scoreboard("view-2") is None


async def test_an_update_needs_the_revision_it_was_based_on(store: ScoreboardStore) -> None:
    record = board()
    await store.create_scoreboard(record)
    first = replace(record, rounds=(ROUND,), revision=1, updated_at=1_700_000_100.0)
    await store.update_scoreboard(first, base=0)
    stale = replace(record, rounds=(ROUND, ROUND), revision=1)
    with pytest.raises(RevisionConflict):
        await store.update_scoreboard(stale, base=0)
    got = await store.get_scoreboard(record.id)
    assert got is not None
    assert got.rounds == (ROUND,)
    assert got.revision == 1
    assert got.preset == "cabo"  # what an edit may not change stays
    assert got.created_at == record.created_at


async def test_racing_edits_of_one_revision_have_one_winner(store: ScoreboardStore) -> None:
    record = board()
    await store.create_scoreboard(record)
    results: list[str] = []

    async def edit(n: int) -> None:
        change = replace(record, rounds=({**ROUND, "caller": n % 3},), revision=1)
        try:
            await store.update_scoreboard(change, base=0)
            results.append("ok")
        except RevisionConflict:
            results.append("conflict")

    async with anyio.create_task_group() as group:
        for n in range(8):
            group.start_soon(edit, n)
    assert sorted(results) == ["conflict"] * 7 + ["ok"]


async def test_updating_an_unknown_board_fails(store: ScoreboardStore) -> None:
    with pytest.raises(StoreError):
        await store.update_scoreboard(board(), base=0)
