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
        "table_lease",
    ]
