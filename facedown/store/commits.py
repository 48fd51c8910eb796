"""A count of commits kept twice, to catch a SQLite database that lost acknowledged writes.

SQLite in WAL mode puts every commit in the write-ahead log (``facedown.db-wal``) first and
copies it into the database file later.  When that log is cut short or overwritten while the
server is stopped (a disk or copy gone wrong, a tool that "cleaned up"), SQLite reads it up to
the last intact commit and silently drops the rest: the database opens, passes
``PRAGMA quick_check``, and is consistent, only older than what players were told was saved.
Every table change and its log entry are one transaction, so the store's own records agree
with each other too: nothing inside the database can tell.

So the count is kept outside it as well.  The writer counts each of its transactions in
``store_meta`` (in that transaction) and, once the commit returned, writes the new count to
``facedown.db.commits`` beside the database (no fsync: a crash leaves it at most one behind, and
a count behind never raises an alarm).  At start-up a database holding fewer commits than the
file says was made has lost commits: it is refused with one line saying so
(:class:`~facedown.store.records.DatabaseDamaged`).

Detected: any loss of committed transactions (a WAL truncated anywhere, even at a frame
boundary, or overwritten, or deleted).  Not detected: losses while the count file itself is
lost or rolled back with the database (restore both from an older copy), and damage that
``quick_check`` does not see in pages already copied into the database file.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import cast

from sqlalchemy.engine import Connection

from .records import DatabaseDamaged

KEY = "commits"  # the store_meta row
_COUNT = "UPDATE store_meta SET value = value + 1 WHERE key = 'commits' RETURNING value"
_WIDTH = 20  # digits: the file is always the same size, rewritten in place


def marks_path(database: Path) -> Path:
    """The count file of the SQLite database at ``database``."""
    return database.with_name(database.name + ".commits")


class CommitMarks:
    """The writer's side: counts each transaction, and records the count once committed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def count(self, connection: Connection) -> int | None:
        """In the transaction: one more commit; its number (None before migration 0004).
        Run on the driver itself (once per transaction: SQLAlchemy's layers cost more than the
        statement)."""
        driver = cast(sqlite3.Connection, connection.connection.driver_connection)
        rows = driver.execute(_COUNT).fetchall()  # every row read: the statement is done
        return int(rows[0][0]) if rows else None

    def committed(self, value: int | None) -> None:
        """After the commit returned: the file says ``value`` commits were made."""
        if value is None:
            return
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        os.pwrite(self._fd, f"{value:0{_WIDTH}d}\n".encode(), 0)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def recorded(database: Path) -> int | None:
    """The count the file beside ``database`` holds (None: no file, or not a count)."""
    try:
        written = marks_path(database).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(written) if written.isdigit() else None


def check_commits(connection: sqlite3.Connection, database: Path) -> None:
    """Raise DatabaseDamaged when the database holds fewer commits than were made."""
    made = recorded(database)
    if made is None:
        return
    # Only a server with store_meta writes the file, so a database without it (or with no
    # schema at all) lost the commits that made it.
    try:
        row = connection.execute("SELECT value FROM store_meta WHERE key = ?", (KEY,)).fetchone()
    except sqlite3.OperationalError:
        row = None
    held = int(row[0]) if row is not None else 0
    if held >= made:
        return
    marks = marks_path(database)
    raise DatabaseDamaged(
        f"the SQLite database {database} lost acknowledged writes: it holds {held} commits, "
        f"{made} were made ({marks.name}); its write-ahead log ({database.name}-wal) was cut "
        "short, overwritten or removed while the server was stopped. Refusing to serve it: "
        "restore the last copy made with `facedown backup` (see docs/server.md), or delete "
        f"{marks} to serve what is left."
    )
