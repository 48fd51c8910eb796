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
from .memory_mail import MailMemory
from .memory_ranked import RankedMemory
from .records import (
    ACTIVE_STATUSES,
    Lease,
    LeaseLost,
    LogEntry,
    PlayerTaken,
    RevisionConflict,
    ScoreboardRecord,
    SequenceConflict,
    SessionRecord,
    StoreError,
    TableExists,
    TableRecord,
    TableStatus,
    UserExists,
    UserRecord,
    table_lease,
)


class MemoryStore(MailMemory, RankedMemory):
    """A :class:`~facedown.store.base.Store` in dicts; every method is atomic (no awaits inside)."""

    shared = True  # the apps of one test process may share it as a cluster's processes

    def __init__(self) -> None:
        super().__init__()
        self._tables: dict[str, TableRecord] = {}
        self._codes: dict[str, str] = {}  # upper-case code -> table id
        self._logs: dict[str, dict[int, LogEntry]] = {}
        self._users: dict[str, UserRecord] = {}
        self._names: dict[str, str] = {}  # name_key -> user id
        self._skeletons: dict[str, str] = {}  # name_skeleton -> user id
        self._players: dict[str, str] = {}  # player id -> user id (in link order)
        self._sessions: dict[str, SessionRecord] = {}
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

    # ------------------------------------------------------------------ accounts

    async def create_user(self, user: UserRecord, guest_ids: Sequence[str] = ()) -> None:
        self._check_open()
        if user.id in self._users or user.name_key in self._names:
            raise UserExists(f"an account named {user.name!r} already exists")
        if user.name_skeleton is not None and user.name_skeleton in self._skeletons:
            raise UserExists(f"an account whose name looks like {user.name!r} already exists")
        if user.player_id in self._players:
            raise PlayerTaken(f"player {user.player_id!r} belongs to another account")
        self._users[user.id] = user
        self._names[user.name_key] = user.id
        if user.name_skeleton is not None:
            self._skeletons[user.name_skeleton] = user.id
        for player in (user.player_id, *guest_ids):
            self._players.setdefault(player, user.id)

    async def get_user(self, user_id: str) -> UserRecord | None:
        self._check_open()
        return self._users.get(user_id)

    async def find_user(self, name_key: str) -> UserRecord | None:
        self._check_open()
        user_id = self._names.get(name_key)
        return None if user_id is None else self._users[user_id]

    async def find_lookalike(self, name_skeleton: str) -> UserRecord | None:
        self._check_open()
        user_id = self._skeletons.get(name_skeleton)
        return None if user_id is None else self._users[user_id]

    async def owner_of_player(self, player_id: str) -> str | None:
        self._check_open()
        return self._players.get(player_id)

    async def link_players(self, user_id: str, player_ids: Sequence[str], at: float) -> list[str]:
        self._check_open()
        if user_id not in self._users:
            raise StoreError(f"no account {user_id!r}")
        linked = []
        for player in dict.fromkeys(player_ids):
            if player not in self._players:
                self._players[player] = user_id
                linked.append(player)
        return linked

    async def user_players(self, user_id: str) -> list[str]:
        self._check_open()
        user = self._users.get(user_id)
        if user is None:
            return []
        others = [p for p, u in self._players.items() if u == user_id and p != user.player_id]
        return [user.player_id, *others]

    async def set_password(
        self,
        user_id: str,
        password_hash: str,
        at: float,
        *,
        end_sessions: bool = True,
        keep_session: str | None = None,
    ) -> None:
        self._check_open()
        user = self._users.get(user_id)
        if user is None:
            raise StoreError(f"no account {user_id!r}")
        self._users[user_id] = replace(user, password_hash=password_hash, updated_at=at)
        if end_sessions:
            self._drop_sessions(user_id, keep_session)

    async def set_email(self, user_id: str, email: str | None, at: float) -> None:
        self._check_open()
        user = self._users.get(user_id)
        if user is None:
            raise StoreError(f"no account {user_id!r}")
        self._users[user_id] = replace(user, email=email, updated_at=at)

    async def create_session(self, session: SessionRecord) -> None:
        self._check_open()
        if session.user_id not in self._users:
            raise StoreError(f"no account {session.user_id!r}")
        taken = any(s.token_hash == session.token_hash for s in self._sessions.values())
        if session.id in self._sessions or taken:
            raise StoreError("a session with this id or token already exists")
        expired = [
            s.id
            for s in self._sessions.values()
            if s.user_id == session.user_id and s.expires_at <= session.created_at
        ]
        for old in expired:
            del self._sessions[old]
        self._sessions[session.id] = session

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        self._check_open()
        return next((s for s in self._sessions.values() if s.token_hash == token_hash), None)

    async def touch_session(self, session_id: str, last_seen: float) -> None:
        self._check_open()
        session = self._sessions.get(session_id)
        if session is not None:
            self._sessions[session_id] = replace(session, last_seen=last_seen)

    async def user_sessions(self, user_id: str) -> list[SessionRecord]:
        self._check_open()
        mine = [s for s in self._sessions.values() if s.user_id == user_id]
        mine.sort(key=lambda s: (-s.created_at, s.id))
        return mine

    async def delete_session(self, user_id: str, session_id: str) -> bool:
        self._check_open()
        session = self._sessions.get(session_id)
        if session is None or session.user_id != user_id:
            return False
        del self._sessions[session_id]
        return True

    async def delete_sessions(self, user_id: str, keep: str | None = None) -> int:
        self._check_open()
        return self._drop_sessions(user_id, keep)

    def _drop_sessions(self, user_id: str, keep: str | None) -> int:
        ended = [s.id for s in self._sessions.values() if s.user_id == user_id and s.id != keep]
        for session_id in ended:
            del self._sessions[session_id]
        return len(ended)

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
