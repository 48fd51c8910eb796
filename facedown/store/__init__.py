"""Persistence of tables and their action logs: one async interface, SQL and in-memory stores."""

from .base import (
    ACTIVE_STATUSES,
    DatabaseDamaged,
    LogEntry,
    PlayerTaken,
    RevisionConflict,
    ScoreboardRecord,
    ScoreboardStore,
    SeatRecord,
    SequenceConflict,
    SessionRecord,
    Store,
    StoreError,
    TableExists,
    TableRecord,
    UserExists,
    UserRecord,
)
from .memory import MemoryStore
from .sql import SqlStore, open_store

__all__ = [
    "ACTIVE_STATUSES",
    "DatabaseDamaged",
    "LogEntry",
    "MemoryStore",
    "PlayerTaken",
    "RevisionConflict",
    "ScoreboardRecord",
    "ScoreboardStore",
    "SeatRecord",
    "SequenceConflict",
    "SessionRecord",
    "SqlStore",
    "Store",
    "StoreError",
    "TableExists",
    "TableRecord",
    "UserExists",
    "UserRecord",
    "open_store",
]
