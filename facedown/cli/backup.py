"""``facedown backup``: copy the server's live SQLite database to a new file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .common import command_parser, data_database, existing_folder

if TYPE_CHECKING:
    from .common import Subparsers

NAME = "backup"
SUMMARY = "copy the server's live SQLite database to a new file"
EXAMPLE = "facedown backup backups/facedown-monday.db --data data"


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.add_argument("dest", help="the new file, in a folder that exists")
    p.add_argument("--data", default="data", help="the server's data folder")
    p.add_argument("--database-url", default=None, help="sqlite:///path/to/facedown.db")
    return p


def run(args: argparse.Namespace) -> int:
    from ..store import StoreError
    from ..store.backup import backup_sqlite

    existing_folder(Path(args.dest), "the copy")
    try:
        source = backup_sqlite(data_database(args.data, args.database_url), Path(args.dest))
    except StoreError as e:
        print(f"facedown backup: {e}", file=sys.stderr)
        return 1
    print(f"facedown backup: {source} copied to {args.dest}")
    print(
        "facedown backup: session tokens are signed with FACEDOWN_SECRET or the data folder's "
        "secret.key: keep that with the copy, or players cannot rejoin their seats"
    )
    return 0
