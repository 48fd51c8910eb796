"""Revision 0007 (turn-based tables: an account's e-mail address) upgrades a database of
revision 0005 in place, on SQLite and on PostgreSQL: the accounts, tables and logs written
before are all there, each account without an address until its owner gives one."""

from __future__ import annotations

import pytest
from alembic.script import ScriptDirectory

from facedown.store import LogEntry, open_store
from facedown.store.migrate import alembic_config

from .test_migration_0003 import _at_revision, _sql
from .test_sql import schema_diff

pytestmark = pytest.mark.anyio

SETTINGS = {"mode": "turn_based", "peek_seconds": 86400, "turn_seconds": 86400}


async def test_a_revision_0005_database_upgrades_in_place(database_url: str) -> None:
    await _at_revision(database_url, "0005")
    # An account and a turn-based table, written as a server of revision 0005 wrote them.
    await _sql(
        database_url,
        "INSERT INTO users (id, name, name_key, password_hash, player_id, created_at,"
        " updated_at) VALUES ('u1', 'Ann', 'ann', 'hash', 'guest-1', 1.0, 1.0)",
        "INSERT INTO user_players (player_id, user_id, linked_at) VALUES ('guest-1', 'u1', 1.0)",
        "INSERT INTO tables (id, code, preset, rules, seed, host_id, settings, status,"
        " deadline, deadline_kind, created_at, updated_at, damage) VALUES ('t1', 'ABCD',"
        " 'kivo', '{}', 7, 'guest-1', '{\"mode\": \"turn_based\", \"peek_seconds\": 86400,"
        " \"turn_seconds\": 86400}', 'playing', NULL, NULL,"
        " 1.0, 2.0, NULL)",
        "INSERT INTO seats (table_id, seat, kind, name, player_id, bot_level) VALUES"
        " ('t1', 0, 'human', 'Ann', 'guest-1', NULL), ('t1', 1, 'bot', 'Bot', NULL, 'easy')",
        "INSERT INTO table_log (table_id, seq, kind, payload, created_at) VALUES"
        " ('t1', 1, 'start', '{\"match\": 1, \"players\": 2, \"deadline\": 86401.0}', 1.5)",
    )
    assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [("0005",)]

    store = await open_store(database_url)  # migrates to the newest revision
    try:
        head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
        assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [(head,)]
        assert await schema_diff(database_url) == []
        ann = await store.get_user("u1")
        assert ann is not None
        assert (ann.name, ann.player_id, ann.email) == ("Ann", "guest-1", None)
        table = await store.get_table("t1")
        assert table is not None
        assert table.settings == SETTINGS
        assert [s.player_id for s in table.seats] == ["guest-1", None]
        assert await store.log("t1") == [
            LogEntry(1, "start", {"match": 1, "players": 2, "deadline": 86401.0}, 1.5)
        ]
        await store.set_email("u1", "ann@example.test", 3.0)
        ann = await store.get_user("u1")
        assert ann is not None
        assert ann.email == "ann@example.test"
        await store.set_email("u1", None, 4.0)
        ann = await store.get_user("u1")
        assert ann is not None
        assert ann.email is None
    finally:
        await store.close()
