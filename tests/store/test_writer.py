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
from facedown.store.commits import CommitMarks
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
    await asyncio.wait_for(store.close(), 30)
    await asyncio.wait_for(asyncio.gather(*appends), 30)

    reopened = await open_store(url)
    try:
        assert [entry.seq for entry in await reopened.log("t")] == list(range(1, 51))
    finally:
        await reopened.close()


async def test_writes_under_load_wait_for_the_pace_mark_and_share_a_commit(
    tmp_path: Path,
) -> None:
    writer, engine = await writer_on(tmp_path, pace=30)
    # The first goes at once; the nine queued while it is in flight wait for the mark, half a
    # minute away (close() hands them over).
    first = asyncio.create_task(writer.run(log_row(1)))
    await asyncio.sleep(0)
    rest = [asyncio.create_task(writer.run(log_row(seq))) for seq in range(2, 11)]
    try:
        await asyncio.wait_for(first, 30)
        assert await logged(engine) == [1]  # the first committed; the rest still wait
        assert not any(task.done() for task in rest)
    finally:
        await asyncio.wait_for(writer.close(), 30)
    await asyncio.wait_for(asyncio.gather(*rest), 30)
    assert writer.transactions == [1, 9]
    assert await logged(engine) == list(range(1, 11))
    await engine.dispose()


async def test_the_pace_mark_hands_over_round_after_round(tmp_path: Path) -> None:
    writer, engine = await writer_on(tmp_path, pace=0.1)
    try:
        for round_ in range(3):
            seqs = range(5 * round_ + 1, 5 * round_ + 6)
            await asyncio.wait_for(asyncio.gather(*(writer.run(log_row(s)) for s in seqs)), 30)
    finally:
        await writer.close()
    assert sum(writer.transactions) == 15
    assert await logged(engine) == list(range(1, 16))
    await engine.dispose()


async def test_a_lone_write_after_a_shared_hand_off_waits_for_the_mark(tmp_path: Path) -> None:
    writer, engine = await writer_on(tmp_path, pace=2.0)
    try:
        # 1 goes at once; 2 and 3, queued while it is in flight, go together at the mark.
        await asyncio.wait_for(
            asyncio.gather(writer.run(log_row(1)), writer.run(log_row(2)), writer.run(log_row(3))),
            30,
        )
        assert writer.transactions == [1, 2]
        # Nothing is in flight now, but the last hand-off had company: the load may go on,
        # so 4 waits for the next mark too.
        fourth = asyncio.create_task(writer.run(log_row(4)))
        await asyncio.sleep(0)
        assert writer._pending
        assert not fourth.done()
        await asyncio.wait_for(fourth, 30)
    finally:
        await writer.close()
    assert writer.transactions == [1, 2, 1]
    assert await logged(engine) == [1, 2, 3, 4]
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
    await asyncio.wait_for(asyncio.gather(*writes), 30)
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


class FailingMarks(CommitMarks):
    """A commit count whose file cannot be written (a full disk, say)."""

    def committed(self, value: int | None) -> None:
        raise OSError(28, "No space left on device")


async def test_a_count_file_that_cannot_be_written_fails_no_committed_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    plain, engine = await writer_on(tmp_path)
    writer = Counted(plain._engine, FailingMarks(tmp_path / "w.db.commits"))
    runs: list[int] = []

    def once_only(connection: Connection) -> None:  # a write that must not run twice
        runs.append(1)
        log_row(len(runs))(connection)

    try:
        outcomes = await asyncio.wait_for(
            asyncio.gather(writer.run(once_only), return_exceptions=True), 30
        )
    finally:
        await writer.close()
    assert outcomes == [None]  # committed, so answered as committed
    assert runs == [1]
    assert await logged(engine) == [1]
    assert "could not record commit" in caplog.text
    await engine.dispose()
