"""Revision 0006 (ranked play) upgrades a database of revision 0005 in place, on SQLite and on
PostgreSQL: what was there stays, and its accounts can queue, be matched and be rated."""

from __future__ import annotations

from typing import cast

import pytest
from alembic.script import ScriptDirectory

from facedown.store import (
    RankedMatchRecord,
    RankedSeat,
    RankedStore,
    RatingRecord,
    SeatRecord,
    TableRecord,
    open_store,
)
from facedown.store.migrate import alembic_config

from .test_migration_0003 import _at_revision, _sql
from .test_sql import schema_diff

pytestmark = pytest.mark.anyio


async def test_a_revision_0005_database_upgrades_in_place(database_url: str) -> None:
    await _at_revision(database_url, "0005")
    await _sql(
        database_url,
        "INSERT INTO users (id, name, name_key, password_hash, player_id, created_at,"
        " updated_at) VALUES ('u1', 'Ann', 'ann', 'h', 'p1', 1.0, 1.0),"
        " ('u2', 'Bob', 'bob', 'h', 'p2', 1.0, 1.0)",
        "INSERT INTO user_players (player_id, user_id, linked_at) VALUES ('p1', 'u1', 1.0),"
        " ('p2', 'u2', 1.0)",
        "INSERT INTO tables (id, code, preset, rules, seed, host_id, settings, status,"
        " deadline, deadline_kind, created_at, updated_at, damage) VALUES ('t1', 'ABCD',"
        " 'kivo', '{}', 7, 'p1', '{}', 'finished', NULL, NULL, 1.0, 2.0, NULL)",
    )
    store = await open_store(database_url)
    try:
        head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
        assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [(head,)]
        assert await schema_diff(database_url) == []
        assert (await store.get_table("t1")) is not None
        ranked = cast(RankedStore, store)
        await ranked.enqueue("u1", "kivo-2", 5.0)
        await ranked.enqueue("u2", "kivo-2", 6.0)
        seats = (SeatRecord(0, "human", "Ann", "p1"), SeatRecord(1, "human", "Bob", "p2"))
        record = TableRecord("t2", "RANK", "kivo", {}, 1, "ranked", seats=seats, created_at=7.0)
        match = RankedMatchRecord(
            "t2", "kivo-2", 7.0, (RankedSeat(0, "u1", 2.0), RankedSeat(1, "u2", 1.0))
        )
        await ranked.create_ranked_match(record, match)
        rated = [RatingRecord("u1", "kivo-2", 27.0, 8.0, 3.0, 1, 8.0)]
        assert await ranked.rate_match("t2", 8.0, {"places": [1, 2]}, rated)
        assert [r.name for r in await ranked.leaderboard("kivo-2", 10)] == ["Ann"]
    finally:
        await store.close()
