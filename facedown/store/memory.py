"""The store in memory, for tests of the server: the same contract as the SQL store, no disk.

Records are kept as a JSON round trip would return them, so a test sees what a database gives
back (lists for tuples, string keys) and a caller mutating a returned dict changes nothing here.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from .base import (
    ACTIVE_STATUSES,
    LogEntry,
    RevisionConflict,
    ScoreboardRecord,
    SequenceConflict,
    StoreError,
    TableExists,
    TableRecord,
    TableStatus,
)
from .checks import check_entry, check_scoreboard, check_table, json_text


class MemoryStore:
    """A :class:`~facedown.store.base.Store` in dicts; every method is atomic (no awaits inside)."""

    def __init__(self) -> None:
        self._tables: dict[str, TableRecord] = {}
        self._codes: dict[str, str] = {}  # upper-case code -> table id
        self._logs: dict[str, dict[int, LogEntry]] = {}
        self._boards: dict[str, ScoreboardRecord] = {}
        self._views: dict[str, str] = {}  # view key -> board id
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the store is closed")

    async def create_table(self, record: TableRecord) -> None:
        self._check_open()
        check_table(record)
        code = record.code.upper()
        if record.id in self._tables:
            raise TableExists(f"a table with id {record.id!r} already exists")
        if code in self._codes:
            raise TableExists(f"a table with code {code!r} already exists")
        self._tables[record.id] = _stored(replace(record, code=code))
        self._codes[code] = record.id
        self._logs[record.id] = {}

    async def get_table(self, table_id: str) -> TableRecord | None:
        self._check_open()
        record = self._tables.get(table_id)
        return None if record is None else _stored(record)

    async def find_by_code(self, code: str) -> TableRecord | None:
        self._check_open()
        table_id = self._codes.get(code.upper())
        return None if table_id is None else _stored(self._tables[table_id])

    async def update_table(self, record: TableRecord) -> None:
        self._check_open()
        check_table(record)
        old = self._tables.get(record.id)
        if old is None:
            raise StoreError(f"no table {record.id!r}")
        new = replace(record, code=old.code, created_at=old.created_at)
        self._tables[record.id] = _stored(new)

    async def append(self, table_id: str, entry: LogEntry) -> None:
        self._check_open()
        check_entry(entry)
        self._check_append(table_id, entry)
        self._logs[table_id][entry.seq] = replace(entry, payload=_json_copy(entry.payload))

    async def append_and_update(self, record: TableRecord, entry: LogEntry) -> None:
        self._check_open()
        check_entry(entry)
        check_table(record)
        self._check_append(record.id, entry)  # every refusal before the first change
        self._logs[record.id][entry.seq] = replace(entry, payload=_json_copy(entry.payload))
        old = self._tables[record.id]
        self._tables[record.id] = _stored(replace(record, code=old.code, created_at=old.created_at))

    def _check_append(self, table_id: str, entry: LogEntry) -> None:
        log = self._logs.get(table_id)
        if log is None:
            raise StoreError(f"no table {table_id!r}")
        if entry.seq in log:
            raise SequenceConflict(f"table {table_id!r} already has log entry {entry.seq}")

    async def log(self, table_id: str, after: int = 0) -> list[LogEntry]:
        self._check_open()
        log = self._logs.get(table_id, {})
        return [
            replace(log[seq], payload=_json_copy(log[seq].payload))
            for seq in sorted(log)
            if seq > after
        ]

    async def active_tables(self) -> list[TableRecord]:
        return self._with_status(ACTIVE_STATUSES)

    async def broken_tables(self) -> list[TableRecord]:
        return self._with_status(("broken",))

    def _with_status(self, statuses: tuple[TableStatus, ...]) -> list[TableRecord]:
        self._check_open()
        found = [record for record in self._tables.values() if record.status in statuses]
        found.sort(key=lambda record: (record.created_at, record.id))
        return [_stored(record) for record in found]

    async def create_scoreboard(self, record: ScoreboardRecord) -> None:
        self._check_open()
        check_scoreboard(record)
        if record.id in self._boards or record.view_key in self._views:
            raise TableExists("a scoreboard with this id or view key already exists")
        self._boards[record.id] = _stored_board(record)
        self._views[record.view_key] = record.id

    async def get_scoreboard(self, board_id: str) -> ScoreboardRecord | None:
        self._check_open()
        record = self._boards.get(board_id)
        return None if record is None else _stored_board(record)

    async def find_scoreboard(self, view_key: str) -> ScoreboardRecord | None:
        self._check_open()
        board_id = self._views.get(view_key)
        return None if board_id is None else _stored_board(self._boards[board_id])

    async def update_scoreboard(self, record: ScoreboardRecord, base: int) -> None:
        self._check_open()
        check_scoreboard(record)
        old = self._boards.get(record.id)
        if old is None:
            raise StoreError("no such scoreboard")
        if old.revision != base:
            raise RevisionConflict(f"the scoreboard is at revision {old.revision}, not {base}")
        self._boards[record.id] = _stored_board(
            replace(
                old,
                names=record.names,
                rounds=record.rounds,
                revision=record.revision,
                updated_at=record.updated_at,
            )
        )

    async def close(self) -> None:
        self._closed = True


def _json_copy(value: Any) -> Any:
    return json.loads(json_text(value, "value"))


def _stored(record: TableRecord) -> TableRecord:
    """A copy of ``record`` whose dicts no caller shares, with seats in seat order."""
    return replace(
        record,
        rules=_json_copy(record.rules),
        settings=_json_copy(record.settings),
        seats=tuple(sorted(record.seats, key=lambda seat: seat.seat)),
    )


def _stored_board(record: ScoreboardRecord) -> ScoreboardRecord:
    """A copy of ``record`` as a JSON round trip returns it (lists inside, no shared dicts)."""
    return replace(
        record,
        names=tuple(record.names),
        options=_json_copy(record.options),
        placement=_json_copy(record.placement),
        rounds=tuple(_json_copy(list(record.rounds))),
    )
