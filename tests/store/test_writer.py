"""The SQLite group commit: shared transactions, one outcome per write, nothing lost at close."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from facedown.store import LogEntry, TableRecord, open_store
from facedown.store.database import make_engine, make_sqlite_writer_engine
from facedown.store.migrate import upgrade_engine
from facedown.store.models import LogRow
from facedown.store.writer import MAX_BATCH, PACE, GroupCommit, Write

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


class Counted(GroupCommit):
    """The group commit, recording how many writes each of its transactions held."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.transactions: list[int] = []

    def _transaction(self, writes: list[Write]) -> list[BaseException | None]:
        self.transactions.append(len(writes))
        return super()._transaction(writes)


async def writer_on(tmp_path: Path, pace: float = PACE) -> tuple[Counted, AsyncEngine]:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    store = await open_store(url)
    await store.create_table(TABLE)
    await store.close()
    engine = make_engine(url)
    await upgrade_engine(engine)
    return Counted(make_sqlite_writer_engine(engine), pace=pace), engine


async def logged(engine: AsyncEngine) -> list[int]:
    async with engine.connect() as connection:
        seqs = (await connection.execute(select(LogRow.seq).order_by(LogRow.seq))).scalars()
        return list(seqs)


async def test_a_failing_write_rolls_back_alone(tmp_path: Path) -> None:
    writer, engine = await writer_on(tmp_path)
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
    assert await logged(engine) == [1, 2]  # 99 was rolled back with its write
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


async def test_writes_under_load_wait_for_the_pace_mark_and_share_a_commit(
    tmp_path: Path,
) -> None:
    writer, engine = await writer_on(tmp_path, pace=2.0)
    try:
        # The first goes at once; the nine queued while it is in flight wait for the mark.
        first = asyncio.create_task(writer.run(log_row(1)))
        await asyncio.sleep(0)
        rest = [asyncio.create_task(writer.run(log_row(seq))) for seq in range(2, 11)]
        await asyncio.wait_for(first, 30)
        assert await logged(engine) == [1]  # the first committed; the rest still wait
        assert not any(task.done() for task in rest)
        await asyncio.wait_for(asyncio.gather(*rest), 30)
    finally:
        await writer.close()
    assert writer.transactions == [1, 9]
    assert await logged(engine) == list(range(1, 11))
    await engine.dispose()


async def test_a_quiet_writer_is_not_paced(tmp_path: Path) -> None:
    # An hour between hand-offs under load: one caller writing again and again, each write
    # alone, never waits for it.
    writer, engine = await writer_on(tmp_path, pace=3600)
    try:
        for seq in range(1, 6):
            await asyncio.wait_for(writer.run(log_row(seq)), 30)
    finally:
        await writer.close()
    assert writer.transactions == [1, 1, 1, 1, 1]
    assert await logged(engine) == [1, 2, 3, 4, 5]
    await engine.dispose()


async def test_close_commits_the_writes_waiting_for_the_pace_mark(tmp_path: Path) -> None:
    writer, engine = await writer_on(tmp_path, pace=3600)
    writes = [asyncio.create_task(writer.run(log_row(seq))) for seq in range(1, 601)]
    await asyncio.sleep(0)  # the first is handed over, the rest wait an hour
    await asyncio.wait_for(writer.close(), 30)
    await asyncio.gather(*writes)
    # No transaction holds more than MAX_BATCH writes, however many waited.
    assert max(writer.transactions) <= MAX_BATCH
    assert sum(writer.transactions) == 600
    assert await logged(engine) == list(range(1, 601))
    await engine.dispose()


async def test_a_write_cancelled_while_waiting_for_the_mark_is_dropped(tmp_path: Path) -> None:
    writer, engine = await writer_on(tmp_path, pace=0.3)
    try:
        first = asyncio.create_task(writer.run(log_row(1)))
        await asyncio.sleep(0)
        dropped = asyncio.create_task(writer.run(log_row(2)))
        kept = asyncio.create_task(writer.run(log_row(3)))
        await asyncio.sleep(0)
        dropped.cancel()
        await asyncio.wait_for(asyncio.gather(first, kept), 30)
    finally:
        await writer.close()
    assert dropped.cancelled()
    assert await logged(engine) == [1, 3]
    # Nothing is left counted in flight: the next lone write goes at once.
    assert writer._in_flight == 0
    await engine.dispose()
