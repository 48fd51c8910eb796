"""The names ``facedown.store`` exports: changing them is an interface change for the server."""

from __future__ import annotations

import facedown.store


def test_the_exported_names() -> None:
    assert sorted(facedown.store.__all__) == [
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
