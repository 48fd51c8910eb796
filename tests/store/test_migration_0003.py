"""Revision 0003 (accounts) upgrades a database of today's schema (0002) in place, on SQLite and
on PostgreSQL: the tables, seats and logs written before are all there, and the guest who sat
at them can sign up and take them into an account."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from facedown.store import LogEntry, SeatRecord, TableRecord, UserRecord, make_engine, open_store
from facedown.store.migrate import alembic_config

from .test_sql import schema_diff

pytestmark = pytest.mark.anyio


async def _at_revision(url: str, revision: str) -> None:
    def run(connection: Connection) -> None:
        config = alembic_config(url)
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    engine = make_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(run)
    finally:
        await engine.dispose()


async def _sql(url: str, *statements: str) -> list[tuple[object, ...]]:
    """Run statements as written (today's schema, not the models); the last one's rows."""
    engine = make_engine(url)
    rows: list[tuple[object, ...]] = []
    try:
        async with engine.begin() as connection:
            for statement in statements:
                result = await connection.execute(text(statement))
                rows = [tuple(r) for r in result] if result.returns_rows else []
    finally:
        await engine.dispose()
    return rows


async def test_a_revision_0002_database_upgrades_in_place(database_url: str) -> None:
    await _at_revision(database_url, "0002")
    # A table of today's schema, written as a server of revision 0002 wrote it.
    await _sql(
        database_url,
        "INSERT INTO tables (id, code, preset, rules, seed, host_id, settings, status,"
        " deadline, deadline_kind, created_at, updated_at, damage) VALUES ('t1', 'ABCD',"
        " 'kivo', '{\"preset\": \"kivo\"}', 7, 'guest-1', '{}', 'finished', NULL, NULL,"
        " 1.0, 2.0, NULL)",
        "INSERT INTO seats (table_id, seat, kind, name, player_id, bot_level) VALUES"
        " ('t1', 0, 'human', 'Ann', 'guest-1', NULL), ('t1', 1, 'bot', 'Bot', NULL, 'easy')",
        "INSERT INTO table_log (table_id, seq, kind, payload, created_at) VALUES"
        " ('t1', 1, 'start', '{\"match\": 1, \"players\": 2}', 1.5)",
    )
    assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [("0002",)]

    store = await open_store(database_url)  # migrates to the newest revision
    try:
        head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
        newest = [(head,)]  # 0003 and every revision after it
        assert await _sql(database_url, "SELECT version_num FROM alembic_version") == newest
        assert await schema_diff(database_url) == []
        found = await store.get_table("t1")
        assert found == TableRecord(
            id="t1",
            code="ABCD",
            preset="kivo",
            rules={"preset": "kivo"},
            seed=7,
            host_id="guest-1",
            status="finished",
            seats=(
                SeatRecord(0, "human", "Ann", "guest-1"),
                SeatRecord(1, "bot", "Bot", bot_level="easy"),
            ),
            created_at=1.0,
            updated_at=2.0,
        )
        assert await store.log("t1") == [LogEntry(1, "start", {"match": 1, "players": 2}, 1.5)]
        # The guest of that table signs up: the account holds the table.
        ann = UserRecord("u1", "Ann", "ann", "hash", "guest-1", 3.0, 3.0)
        await store.create_user(ann)
        assert [t.id for t in await store.player_tables(await store.user_players("u1"), 10)] == [
            "t1"
        ]
    finally:
        await store.close()
