"""Revision 0012 makes a table's seed decimal text (128 bits), on SQLite and on PostgreSQL: a
database of revision 0009 upgrades in place with every seed kept (the largest and smallest a
BIGINT held, and a table's log and seats with them), a 128-bit seed is then stored and read
back, and a downgrade turns the column back into BIGINT while its seeds fit."""

from __future__ import annotations

from dataclasses import replace

import pytest
from alembic.script import ScriptDirectory

from facedown.store import open_store
from facedown.store.migrate import alembic_config, upgrade

from .test_migration_0003 import _at_revision, _sql
from .test_migration_0009 import _down_to
from .test_sql import schema_diff

pytestmark = pytest.mark.anyio

WIDE = 2**128 - 1


_COLUMNS = (
    "INSERT INTO tables (id, code, preset, rules, seed, host_id, settings, status, deadline,"
    " deadline_kind, created_at, updated_at, damage) VALUES "
)
_REST = "'guest-1', '{}', 'playing', NULL, NULL, 1.0, 2.0, NULL)"
_KIVO = "'kivo', '{\"preset\": \"kivo\"}'"
ROWS = [
    _COLUMNS + f"('t1', 'ABCD', {_KIVO}, 281474976710655, {_REST}",  # 2**48 - 1
    _COLUMNS + f"('t2', 'EFGH', {_KIVO}, 9223372036854775807, {_REST}",  # 2**63 - 1
    _COLUMNS + f"('t3', 'JKLM', {_KIVO}, -9223372036854775808, {_REST}",  # -(2**63)
]


async def test_seeds_are_kept_as_text_and_128_bits_fit(database_url: str) -> None:
    await _at_revision(database_url, "0009")
    await _sql(
        database_url,
        *ROWS,
        "INSERT INTO seats (table_id, seat, kind, name, player_id, bot_level) VALUES"
        " ('t1', 0, 'human', 'Ann', 'guest-1', NULL)",
        "INSERT INTO table_log (table_id, seq, kind, payload, created_at) VALUES"
        " ('t1', 1, 'start', '{\"match\": 1, \"players\": 2}', 1.5)",
    )

    store = await open_store(database_url)  # migrates to the newest revision
    try:
        head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
        assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [(head,)]
        assert await schema_diff(database_url) == []
        seeds = {}
        for table_id in ("t1", "t2", "t3"):
            record = await store.get_table(table_id)
            assert record is not None
            seeds[table_id] = record.seed
        assert seeds == {"t1": 2**48 - 1, "t2": 2**63 - 1, "t3": -(2**63)}
        one = await store.get_table("t1")
        assert one is not None
        assert [s.name for s in one.seats] == ["Ann"]
        assert [e.kind for e in await store.log("t1")] == ["start"]
        # A seed of 128 bits is written (both ways a record is written) and read back whole.
        wide = replace(one, id="t4", code="NPQR", seed=WIDE, seats=())
        await store.create_table(wide)
        assert (await store.get_table("t4")).seed == WIDE  # type: ignore[union-attr]
        await store.update_table(replace(wide, seed=WIDE - 1, status="finished"))
        assert (await store.get_table("t4")).seed == WIDE - 1  # type: ignore[union-attr]
        [(text,)] = await _sql(database_url, "SELECT seed FROM tables WHERE id = 't4'")
        assert text == str(WIDE - 1)  # decimal text in the column
    finally:
        await store.close()

    await _sql(database_url, "DELETE FROM tables WHERE id = 't4'")
    await _down_to(database_url, "0009")  # every seed left fits a BIGINT again
    rows = await _sql(database_url, "SELECT id, seed FROM tables ORDER BY id")
    assert rows == [("t1", 2**48 - 1), ("t2", 2**63 - 1), ("t3", -(2**63))]
    await upgrade(database_url)
    assert await schema_diff(database_url) == []
