"""The SQLite group commit: shared transactions, one outcome per write, nothing lost at close."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from facedown.store import LogEntry, TableRecord, open_store
from facedown.store.database import make_engine, make_sqlite_writer_engine
from facedown.store.migrate import upgrade_engine
from facedown.store.models import LogRow
from facedown.store.writer import GroupCommit, Write

pytestmark = pytest.mark.anyio

TABLE = TableRecord(id="t", code="T", preset="cabo", rules={}, seed=1, host_id="h")


def log_row(seq: int) -> Write:
    def write(connection: Connection) -> None:
        row = {"table_id": "t", "seq": seq, "kind": "k", "payload": {}, "created_at": 0.0}
        connection.execute(insert(LogRow), row)

    return write


def broken(connection: Connection) -> None:
    row = {"table_id": "t", "seq": 99, "kind": "k", "payload": {}, "created_at": 0.0}
    connection.execute(insert(LogRow), row)
    raise RuntimeError("a bug in a write")


async def test_a_failing_write_rolls_back_alone(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    store = await open_store(url)
    await store.create_table(TABLE)
    await store.close()

    engine = make_engine(url)
    await upgrade_engine(engine)
    writer = GroupCommit(make_sqlite_writer_engine(engine))
    try:
        outcomes = await asyncio.gather(
            writer.run(log_row(1)),
            writer.run(broken),
            writer.run(log_row(2)),
            return_exceptions=True,
        )
    finally:
        await writer.close()
    assert outcomes[0] is None
    assert outcomes[2] is None
    assert isinstance(outcomes[1], RuntimeError)
    async with engine.connect() as connection:
        seqs = (await connection.execute(select(LogRow.seq).order_by(LogRow.seq))).scalars()
        assert list(seqs) == [1, 2]  # 99 was rolled back with its write
    await engine.dispose()


async def test_close_commits_every_queued_write(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    store = await open_store(url)
    await store.create_table(TABLE)
    appends = [
        asyncio.create_task(store.append("t", LogEntry(seq, "action", {}))) for seq in range(1, 51)
    ]
    await asyncio.sleep(0)  # every append is queued
    await store.close()
    await asyncio.gather(*appends)

    reopened = await open_store(url)
    try:
        assert [entry.seq for entry in await reopened.log("t")] == list(range(1, 51))
    finally:
        await reopened.close()
