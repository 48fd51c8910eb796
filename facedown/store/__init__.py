"""Persistence of tables and their action logs: one async interface, SQL and in-memory stores."""

from .base import (
    ACTIVE_STATUSES,
    DatabaseDamaged,
    LogEntry,
    RevisionConflict,
    ScoreboardRecord,
    ScoreboardStore,
    SeatRecord,
    SequenceConflict,
    Store,
    StoreError,
    TableExists,
    TableRecord,
)
from .memory import MemoryStore
from .sql import SqlStore, open_store

__all__ = [
    "ACTIVE_STATUSES",
    "DatabaseDamaged",
    "LogEntry",
    "MemoryStore",
    "RevisionConflict",
    "ScoreboardRecord",
    "ScoreboardStore",
    "SeatRecord",
    "SequenceConflict",
    "SqlStore",
    "Store",
    "StoreError",
    "TableExists",
    "TableRecord",
    "open_store",
]
