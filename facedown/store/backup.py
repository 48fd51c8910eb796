"""``facedown backup``: a consistent copy of a live SQLite database (SQLite's online backup).

The copy is taken in one step of SQLite's backup API, inside one read transaction: it holds
every commit made before it began and none after, while the server goes on writing (in WAL
mode readers do not block the writer).  It is written next to its destination and renamed
into place only once it passes ``PRAGMA quick_check``, so a copy that exists is whole.
PostgreSQL is backed up with its own tools (``pg_dump``, see docs/server.md).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing, suppress
from pathlib import Path

from .database import SQLITE_BUSY_TIMEOUT_MS, check_sqlite_integrity, database_url, sqlite_file
from .records import StoreError


def backup_sqlite(url: str, dest: Path) -> Path:
    """Copy the SQLite database at ``url`` to the new file ``dest``; returns the source file.

    Raise StoreError when the database is not a SQLite file, ``dest`` exists or its folder does
    not, or the copy fails.
    """
    source = sqlite_file(url)
    if source is None:
        backend = database_url(url).get_backend_name()
        raise StoreError(
            f"facedown backup copies SQLite databases, not {backend}: back PostgreSQL up "
            "with pg_dump (see docs/server.md)"
        )
    if not source.is_file():
        raise StoreError(f"there is no database at {source}")
    if dest.exists():
        raise StoreError(f"{dest} exists: back up to a new file")
    if not dest.parent.is_dir():  # no folder is made: a mistyped path is not a new folder
        raise StoreError(f"there is no folder {dest.parent} for {dest}")
    partial = dest.with_name(dest.name + ".partial")
    try:
        with closing(sqlite3.connect(source, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)) as live:
            check_sqlite_integrity(live, source)  # a damaged database makes a damaged copy
            with closing(sqlite3.connect(partial)) as copy:
                live.backup(copy)  # all pages in one step: one consistent snapshot
                check_sqlite_integrity(copy, partial)
        os.replace(partial, dest)
    except (OSError, sqlite3.Error) as e:
        raise StoreError(f"backup of {source} to {dest} failed: {e}") from None
    finally:
        with suppress(OSError):
            partial.unlink()
    return source
