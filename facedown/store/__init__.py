"""The store: what the server persists (tables and their action logs, leases, accounts and
sessions, ranked play, turn e-mails, scoreboards), behind one async interface with two
implementations, SQL (SQLite in a file, or PostgreSQL) and in memory (tests).

This package is the store's public surface; the server, the command line and the benchmarks
import from here:

- the interface: :class:`Store` and its companions :class:`RankedStore`, :class:`MailStore`,
  :class:`ScoreboardStore` (:mod:`.base`);
- the records it stores and the errors it raises, all subclasses of :class:`StoreError`
  (:mod:`.records`);
- the stores: :func:`open_store` (a :class:`SqlStore` on a migrated database, :mod:`.sql`, one
  module per concern) and :class:`MemoryStore` (:mod:`.memory`);
- the operator's tools: :func:`upgrade` (migrate a database, ``facedown db upgrade``),
  :func:`check_database` (``facedown serve``'s check before it starts), :func:`backup_sqlite`
  (``facedown backup``), :func:`sqlite_file` and :func:`make_engine` (a database URL's file;
  an engine on it).

The other modules are the store's own (the schema in :mod:`.models` and its Alembic migrations,
SQLite's group commit in :mod:`.writer` and its commit marks in :mod:`.commits`); tests and
benchmarks that look at those reach them by their module.
"""

from .backup import backup_sqlite
from .base import MailStore, RankedStore, ScoreboardStore, Store
from .database import check_database, make_engine, sqlite_file
from .memory import MemoryStore
from .migrate import upgrade
from .records import (
    ACTIVE_STATUSES,
    DatabaseDamaged,
    Lease,
    LeaseBusy,
    LeaseLost,
    LogEntry,
    MailAccount,
    PlayerTaken,
    QueueChanged,
    QueueEntry,
    RankedMatchRecord,
    RankedSeat,
    RatingRecord,
    RevisionConflict,
    ScoreboardRecord,
    SeatKind,
    SeatRecord,
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
from .sql import SqlStore, open_store

__all__ = [
    "ACTIVE_STATUSES",
    "DatabaseDamaged",
    "Lease",
    "LeaseBusy",
    "LeaseLost",
    "LogEntry",
    "MailAccount",
    "MailStore",
    "MemoryStore",
    "PlayerTaken",
    "QueueChanged",
    "QueueEntry",
    "RankedMatchRecord",
    "RankedSeat",
    "RankedStore",
    "RatingRecord",
    "RevisionConflict",
    "ScoreboardRecord",
    "ScoreboardStore",
    "SeatKind",
    "SeatRecord",
    "SequenceConflict",
    "SessionRecord",
    "SqlStore",
    "Store",
    "StoreError",
    "TableExists",
    "TableRecord",
    "TableStatus",
    "UserExists",
    "UserRecord",
    "backup_sqlite",
    "check_database",
    "make_engine",
    "open_store",
    "sqlite_file",
    "table_lease",
    "upgrade",
]
