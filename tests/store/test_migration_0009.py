"""Revision 0009 drops ``queue_leases`` (the matchmaker runs under a lease of ``leases``), on
SQLite and on PostgreSQL: a database of revision 0008 upgrades in place with its other rows
kept, and a downgrade makes the table again as revision 0006 made it."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from facedown.store import make_engine, open_store
from facedown.store.migrate import alembic_config, upgrade

from .test_migration_0003 import _at_revision, _sql
from .test_sql import schema_diff

pytestmark = pytest.mark.anyio


async def _down_to(url: str, revision: str) -> None:
    def run(connection: Connection) -> None:
        config = alembic_config(url)
        config.attributes["connection"] = connection
        command.downgrade(config, revision)

    engine = make_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(run)
    finally:
        await engine.dispose()


def _shape(connection: Connection) -> dict[str, Any]:
    """The tables' names, and the columns and primary key of ``queue_leases`` if it is there."""
    inspector = inspect(connection)
    names = set(inspector.get_table_names())
    if "queue_leases" not in names:
        return {"tables": names}
    columns = [
        (c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns("queue_leases")
    ]
    key = inspector.get_pk_constraint("queue_leases")
    return {
        "tables": names,
        "columns": columns,
        "key": (key["name"], key["constrained_columns"]),
    }


async def shape(url: str) -> dict[str, Any]:
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_shape)
    finally:
        await engine.dispose()


async def test_queue_leases_go_and_come_back_as_0006_made_them(database_url: str) -> None:
    await _at_revision(database_url, "0008")
    made = await shape(database_url)  # as 0006 made it (0007 and 0008 left it alone)
    assert [(name, nullable) for name, _, nullable in made["columns"]] == [
        ("queue", False),
        ("holder", False),
        ("expires_at", False),
    ]
    assert made["key"] == ("pk_queue_leases", ["queue"])
    await _sql(
        database_url,
        "INSERT INTO queue_leases (queue, holder, expires_at) VALUES ('cabo-2', 'old', 9.0)",
        "INSERT INTO leases (name, owner, fence, expires_at) VALUES ('table:t1', 'a', 3, 9.0)",
    )

    store = await open_store(database_url)  # migrates to the newest revision
    try:
        head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
        assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [(head,)]
        assert await schema_diff(database_url) == []
        later = {"mail_accounts", "mail_counts"}  # revision 0010's
        assert (await shape(database_url))["tables"] - later == made["tables"] - {"queue_leases"}
        found = await store.get_lease("table:t1")  # the general leases stay
        assert found is not None
        assert (found[0].owner, found[0].fence) == ("a", 3)
    finally:
        await store.close()

    await _down_to(database_url, "0008")
    assert await shape(database_url) == made
    assert await _sql(database_url, "SELECT * FROM queue_leases") == []  # empty again
    assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [("0008",)]
    await upgrade(database_url)
    assert await schema_diff(database_url) == []
