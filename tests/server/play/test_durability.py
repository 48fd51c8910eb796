"""A crash between a table's log entry and its record must not wedge the table.

A match's ``start`` entry and the table's ``status`` change are one write, so a process that
dies right after that write leaves a table that resumes: the match plays on, timers run and
bots move.  And a table whose record disagrees with its log (written by a server from before
that was so) is loaded as its log says.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from facedown.bots import make_bot
from facedown.server.base.clock import FakeClock
from facedown.server.modes.modes import TableSettings
from facedown.server.play.context import TableConfig, TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import Table
from facedown.server.transport.hub import LocalHub
from facedown.store import Lease, LogEntry, MemoryStore, Store, TableRecord

FAST: TableSettings = {"peek_seconds": 5, "turn_seconds": 10}
CONFIG = TableConfig(bot_delay=0.1, grace_seconds=1.0, reveal_seconds=1.0)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Killed(Exception):
    """The process "died": nothing after the write that raised this ran."""


class DyingStore:
    """A store that dies right after the first write that makes a log entry of ``kind`` durable:
    that write is kept, then every later call fails (as a killed process makes none)."""

    def __init__(self, inner: MemoryStore, kind: str) -> None:
        self.inner = inner
        self.kind = kind
        self.dead = False

    def _alive(self) -> None:
        if self.dead:
            raise Killed("the process is gone")

    def _die_after(self, entry: LogEntry) -> None:
        if entry.kind == self.kind:
            self.dead = True
            raise Killed(f"killed right after the {entry.kind} entry {entry.seq} was written")

    async def ping(self) -> None:
        self._alive()
        await self.inner.ping()

    async def create_table(self, record: TableRecord) -> None:
        self._alive()
        await self.inner.create_table(record)

    async def get_table(self, table_id: str) -> TableRecord | None:
        self._alive()
        return await self.inner.get_table(table_id)

    async def find_by_code(self, code: str) -> TableRecord | None:
        self._alive()
        return await self.inner.find_by_code(code)

    async def update_table(self, record: TableRecord, *, lease: Lease | None = None) -> None:
        self._alive()
        await self.inner.update_table(record, lease=lease)

    async def update_settings(
        self, table_id: str, settings: dict[str, Any], *, lease: Lease | None = None
    ) -> None:
        self._alive()
        await self.inner.update_settings(table_id, settings, lease=lease)

    async def append(self, table_id: str, entry: LogEntry, *, lease: Lease | None = None) -> None:
        self._alive()
        await self.inner.append(table_id, entry, lease=lease)
        self._die_after(entry)

    async def append_and_update(
        self, record: TableRecord, entry: LogEntry, *, lease: Lease | None = None
    ) -> None:
        self._alive()
        await self.inner.append_and_update(record, entry, lease=lease)
        self._die_after(entry)

    async def log(self, table_id: str, after: int = 0) -> list[LogEntry]:
        self._alive()
        return await self.inner.log(table_id, after)

    async def active_tables(self) -> list[TableRecord]:
        self._alive()
        return await self.inner.active_tables()

    async def broken_tables(self) -> list[TableRecord]:
        self._alive()
        return await self.inner.broken_tables()

    async def token_floors(self) -> dict[str, int]:
        self._alive()
        return await self.inner.token_floors()

    async def set_token_floor(self, player_id: str, valid_from: int) -> None:
        self._alive()
        await self.inner.set_token_floor(player_id, valid_from)

    async def close(self) -> None:
        self.dead = True

    def __getattr__(self, name: str) -> Any:
        # The accounts' methods (no table writes, so nothing here dies at them): the inner store's.
        return getattr(self.inner, name)


def _lobby(store: Store, clock: FakeClock) -> Lobby:
    return Lobby(TableContext(store, LocalHub(), make_bot, CONFIG, clock))


async def _play_out(table: Table, clock: FakeClock) -> None:
    """Let time pass (the host is away: a stand-in plays for them) until the match is over."""
    for _ in range(3000):
        if table.game is not None and table.game.is_match_over:
            return
        await clock.advance(2.0)
    raise AssertionError("the match never ended")


async def _restart(store: MemoryStore, clock: FakeClock, code: str) -> tuple[Lobby, Table]:
    lobby = _lobby(store, clock)
    assert await lobby.recover() == 1
    return lobby, await lobby.find(code)


async def _resumed(table: Table, match_no: int) -> None:
    """The restarted table is playing this match, as its record in the store says too."""
    assert table.record.status == "playing"
    assert table.table_info()["status"] == "playing"
    assert table.match_no == match_no
    assert table.playing()
    stored = await table.store.get_table(table.record.id)
    assert stored is not None
    assert stored.status == "playing"


async def _plays_on(clock: FakeClock, *tables: Table) -> None:
    """Timers and bots move the tables on, to the end of their matches."""
    assert clock.pending(), "nothing is armed: no timer, no bot move"
    seqs = [table.seq for table in tables]
    await clock.advance(30.0)
    for table, seq in zip(tables, seqs, strict=True):
        assert table.seq > seq + 2, "the match did not move on"
    for table in tables:
        await _play_out(table, clock)
        stored = await table.store.get_table(table.record.id)
        assert stored is not None
        assert stored.status == "finished"


@pytest.mark.anyio
async def test_killed_right_after_the_first_start_the_match_resumes() -> None:
    inner, clock = MemoryStore(), FakeClock()
    store = DyingStore(inner, "start")
    lobby = _lobby(store, clock)
    table = await lobby.create("host", "Ann", "kivo", {}, 2, FAST, ["easy"])
    with pytest.raises(Killed):
        await table.start("host")
    await table.close()

    restarted = FakeClock(clock.now())
    lobby, table = await _restart(inner, restarted, table.record.code)
    assert table.seq == 1
    await _resumed(table, 1)
    await _plays_on(restarted, table)
    await lobby.close()


@pytest.mark.anyio
async def test_killed_right_after_a_rematch_starts_the_match_resumes() -> None:
    inner, clock = MemoryStore(), FakeClock()
    store = DyingStore(inner, "rematch-never")  # dies at no entry for match 1
    lobby = _lobby(store, clock)
    table = await lobby.create("host", "Ann", "kivo", {}, 2, FAST, ["easy"])
    await table.start("host")
    await _play_out(table, clock)
    store.kind = "start"  # now die right after the next start entry: the rematch's
    with pytest.raises(Killed):
        await table.rematch("host")
    await table.close()

    restarted = FakeClock(clock.now())
    lobby, table = await _restart(inner, restarted, table.record.code)
    await _resumed(table, 2)
    await _plays_on(restarted, table)
    await lobby.close()


async def _with_status(store: MemoryStore, table: Table, status: str) -> None:
    """The record as a server writing the entry and the record apart could leave it."""
    record = await store.get_table(table.record.id)
    assert record is not None
    await store.update_table(replace(record, status=status))  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_a_record_behind_its_log_is_loaded_as_the_log_says() -> None:
    store, clock = MemoryStore(), FakeClock()
    lobby = _lobby(store, clock)  # (its tables share one clock: each plays only in its turn)
    over = await lobby.create("host", "Ann", "kivo", {}, 2, FAST, ["easy"])
    await over.start("host")
    await _play_out(over, clock)
    await _with_status(store, over, "playing")  # the match is over, a playing record

    rematched = await lobby.create("host", "Ann", "kivo", {}, 2, FAST, ["easy"])
    await rematched.start("host")
    await _play_out(rematched, clock)
    await rematched.rematch("host")
    await _with_status(store, rematched, "finished")  # match 2 running, a finished record

    started = await lobby.create("host", "Ann", "kivo", {}, 2, FAST, ["easy"])
    await started.start("host")
    await _with_status(store, started, "lobby")  # a start entry, a lobby record
    await lobby.close()

    restarted = FakeClock(clock.now())
    lobby = _lobby(store, restarted)
    # Loaded at start-up: the lobby record and the playing one (the finished record of the
    # rematch is not active: it is loaded when asked for, and then as its log says).
    assert await lobby.recover() == 2
    one, two = await lobby.find(started.record.code), await lobby.find(rematched.record.code)
    done = await lobby.find(over.record.code)
    assert done.record.status == "finished"
    assert not done.playing()
    stored = await store.get_table(over.record.id)
    assert stored is not None
    assert stored.status == "finished"
    await _resumed(one, 1)
    await _resumed(two, 2)
    await _plays_on(restarted, one, two)
    await lobby.close()
