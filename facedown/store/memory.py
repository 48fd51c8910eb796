"""The store in memory, for tests of the server: the same contract as the SQL store, no disk.

Records are kept as a JSON round trip would return them, so a test sees what a database gives
back (lists for tuples, string keys) and a caller mutating a returned dict changes nothing here.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .checks import check_entry, check_floor, check_scoreboard, check_table, json_text
from .memory_accounts import AccountsMemory
from .memory_mail import MailMemory
from .memory_ranked import RankedMemory
from .records import (
    ACTIVE_STATUSES,
    Lease,
    LeaseLost,
    LogEntry,
    RevisionConflict,
    ScoreboardRecord,
    SequenceConflict,
    StoreError,
    TableExists,
    TableRecord,
    TableStatus,
    table_lease,
)


class MemoryStore(AccountsMemory, MailMemory, RankedMemory):
    """A :class:`~facedown.store.base.Store` in dicts; every method is atomic (no awaits inside)."""

    shared = True  # the apps of one test process may share it as a cluster's processes

    def __init__(self) -> None:
        super().__init__()
        self._tables: dict[str, TableRecord] = {}
        self._codes: dict[str, str] = {}  # upper-case code -> table id
        self._logs: dict[str, dict[int, LogEntry]] = {}
        self._floors: dict[str, int] = {}  # player id -> earliest token issue (ms) valid
        self._boards: dict[str, ScoreboardRecord] = {}
        self._views: dict[str, str] = {}  # view key -> board id
        self._leases: dict[str, Lease] = {}
        self._cluster = secrets.randbits(62)
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

    async def update_table(self, record: TableRecord, *, lease: Lease | None = None) -> None:
        self._check_open()
        check_table(record)
        self._check_lease(lease)
        old = self._tables.get(record.id)
        if old is None:
            raise StoreError(f"no table {record.id!r}")
        new = replace(record, code=old.code, created_at=old.created_at)
        self._tables[record.id] = _stored(new)

    async def update_settings(
        self, table_id: str, settings: dict[str, Any], *, lease: Lease | None = None
    ) -> None:
        self._check_open()
        json_text(settings, "settings")
        self._check_lease(lease)
        old = self._tables.get(table_id)
        if old is None:
            raise StoreError(f"no table {table_id!r}")
        self._tables[table_id] = _stored(replace(old, settings=settings))

    async def append(self, table_id: str, entry: LogEntry, *, lease: Lease | None = None) -> None:
        self._check_open()
        check_entry(entry)
        self._check_lease(lease)
        self._check_append(table_id, entry)
        self._logs[table_id][entry.seq] = replace(entry, payload=_json_copy(entry.payload))

    async def append_and_update(
        self, record: TableRecord, entry: LogEntry, *, lease: Lease | None = None
    ) -> None:
        self._check_open()
        check_entry(entry)
        check_table(record)
        self._check_lease(lease)
        self._check_append(record.id, entry)  # every refusal before the first change
        self._logs[record.id][entry.seq] = replace(entry, payload=_json_copy(entry.payload))
        old = self._tables[record.id]
        self._tables[record.id] = _stored(replace(record, code=old.code, created_at=old.created_at))

    def _check_lease(self, lease: Lease | None) -> None:
        if lease is None:
            return
        held = self._leases.get(lease.name)
        if held is None or (held.owner, held.fence) != (lease.owner, lease.fence):
            raise LeaseLost(f"lease {lease.name} (fence {lease.fence}) is no longer held")

    # ------------------------------------------------------------------ leases (this clock)

    async def take_lease(self, name: str, owner: str, seconds: float) -> Lease | None:
        self._check_open()
        now = time.time()
        held = self._leases.get(name)
        if held is None:
            fence = 1
        elif held.owner == owner:
            fence = held.fence
        elif held.expires_at <= now:
            fence = held.fence + 1
        else:
            return None
        lease = self._leases[name] = Lease(name, owner, fence, now + seconds)
        return lease

    async def renew_leases(self, owner: str, names: Sequence[str], seconds: float) -> set[str]:
        self._check_open()
        now = time.time()
        until = now + seconds
        renewed = set()
        for name in names:
            held = self._leases.get(name)
            if held is not None and held.owner == owner and held.expires_at > now:
                self._leases[name] = replace(held, expires_at=until)
                renewed.add(name)
        return renewed

    async def release_leases(self, owner: str, names: Sequence[str]) -> None:
        self._check_open()
        for name in names:
            held = self._leases.get(name)
            if held is not None and held.owner == owner:
                self._leases[name] = replace(held, expires_at=0.0)

    async def get_lease(self, name: str) -> tuple[Lease, bool] | None:
        self._check_open()
        held = self._leases.get(name)
        return None if held is None else (held, held.expires_at > time.time())

    async def cluster_id(self) -> int:
        self._check_open()
        return self._cluster

    async def unowned_tables(self, limit: int) -> list[str]:
        self._check_open()
        now = time.time()
        active = [t for t in self._tables.values() if t.status in ACTIVE_STATUSES]
        active.sort(key=lambda t: (t.created_at, t.id))
        out = []
        for record in active:
            held = self._leases.get(table_lease(record.id))
            if held is None or held.expires_at <= now:
                out.append(record.id)
        return out[:limit]

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

    async def ping(self) -> None:
        self._check_open()

    async def player_tables(self, player_ids: Sequence[str], limit: int) -> list[TableRecord]:
        self._check_open()
        wanted = set(player_ids)
        found = [
            record
            for record in self._tables.values()
            if any(seat.player_id in wanted for seat in record.seats)
        ]
        found.sort(key=lambda record: (-record.updated_at, record.id))
        return [_stored(record) for record in found[: max(limit, 0)]]

    async def token_floors(self) -> dict[str, int]:
        self._check_open()
        return dict(self._floors)

    async def set_token_floor(self, player_id: str, valid_from: int) -> None:
        self._check_open()
        check_floor(player_id, valid_from)
        self._floors[player_id] = max(valid_from, self._floors.get(player_id, valid_from))

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
