"""Revision 0011 (what account names look like) upgrades a database of revision 0009 in place,
on SQLite and on PostgreSQL: every account keeps its name; the oldest of two that look alike
gets the skeleton, the other none; and no new account may look like either."""

from __future__ import annotations

import pytest

from facedown.names import name_skeleton
from facedown.store import UserExists, UserRecord, open_store

from .test_migration_0003 import _at_revision, _sql
from .test_sql import schema_diff

pytestmark = pytest.mark.anyio

CYRILLIC_ANN = "\u0410nn"  # a Cyrillic capital A, then Latin: looks like "Ann"


async def test_a_revision_0009_database_upgrades_in_place(database_url: str) -> None:
    await _at_revision(database_url, "0009")
    await _sql(
        database_url,
        "INSERT INTO users (id, name, name_key, password_hash, player_id, created_at,"
        " updated_at) VALUES ('u1', 'Ann', 'ann', 'hash', 'p1', 1.0, 1.0),"
        " ('u2', '\u0410nn', '\u0430nn', 'hash', 'p2', 2.0, 2.0),"  # CYRILLIC_ANN, folded
        " ('u3', 'Bob', 'bob', 'hash', 'p3', 3.0, 3.0)",
        "INSERT INTO user_players (player_id, user_id, linked_at) VALUES ('p1', 'u1', 1.0),"
        " ('p2', 'u2', 2.0), ('p3', 'u3', 3.0)",
        "INSERT INTO sessions (id, user_id, token_hash, created_at, last_seen, expires_at,"
        " agent) VALUES ('s1', 'u1', 'h1', 1.0, 1.0, 99.0, 'a')",
    )
    store = await open_store(database_url)  # migrates to the newest revision
    try:
        assert await schema_diff(database_url) == []
        rows = await _sql(database_url, "SELECT id, name, name_skeleton FROM users ORDER BY id")
        assert rows == [("u1", "Ann", "ann"), ("u2", CYRILLIC_ANN, None), ("u3", "Bob", "bob")]
        assert await store.find_lookalike(name_skeleton("Ann")) == await store.get_user("u1")
        assert [s.id for s in await store.user_sessions("u1")] == ["s1"]
        lookalike = UserRecord(
            "u4", "AnN", "ann-4", "hash", "p4", 4.0, 4.0, name_skeleton=name_skeleton("AnN")
        )
        with pytest.raises(UserExists):
            await store.create_user(lookalike)
    finally:
        await store.close()
