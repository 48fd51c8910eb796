"""``facedown db``: manage the server's database (``facedown db upgrade``: migrate it to the
newest schema)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from .common import CommandError, HelpFormatter, command_parser, sqlite_folder

if TYPE_CHECKING:
    from .common import Subparsers

NAME = "db"
SUMMARY = "manage the server's database"
EXAMPLE = "facedown db upgrade --url sqlite:///data/facedown.db"


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    parser = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    actions = parser.add_subparsers(
        dest="db_command", required=True, metavar="ACTION", title="actions"
    )
    p = actions.add_parser(
        "upgrade",
        help="migrate the database to the newest schema",
        description="Migrate the database to the newest schema. A URL it cannot use (not a "
        "database, unreachable, a SQLite file in a folder that does not exist) is refused in "
        "one line with exit status 2.",
        epilog=f"Example:\n  {EXAMPLE}",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--url", required=True, help="sqlite:///path/to/facedown.db or postgresql://...")
    return parser


def run(args: argparse.Namespace) -> int:
    return ACTIONS[args.db_command](args)


def run_upgrade(args: argparse.Namespace) -> int:
    import asyncio

    from ..store import StoreError, upgrade

    sqlite_folder(args.url)
    try:
        asyncio.run(upgrade(args.url))
    except StoreError as e:  # a URL it cannot use: bad, unreachable, or not a database
        raise CommandError(str(e)) from None
    return 0


# What each ACTION does (the parser requires one of them).
ACTIONS: dict[str, Callable[[argparse.Namespace], int]] = {"upgrade": run_upgrade}
