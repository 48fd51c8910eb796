"""``facedown replay``: print a finished match step by step, face up or as one seat saw it, from
the server's database or an exported file (or export it to one)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from .common import CommandError, command_parser, count, data_database

if TYPE_CHECKING:
    from ..records.matches import MatchLog
    from .common import Subparsers

NAME = "replay"
SUMMARY = "print a finished match step by step (face up, or as one seat saw it)"
EXAMPLE = "facedown replay TABLE_ID/1 --seat 0"


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.add_argument("match", help="a match id <table_id>/<match_no>, or an exported replay file")
    p.add_argument("--seat", type=count(0), default=None, help="through this seat's eyes")
    p.add_argument("--knowledge", action="store_true", help="with --seat: every card it knew")
    p.add_argument("--round", type=count(1), default=None, help="only this round")
    p.add_argument("--export", action="store_true", help="write the match to a file (-o FILE)")
    p.add_argument("-o", "--output", default=None, help="the file --export writes")
    p.add_argument("--data", default="data", help="the server's data folder")
    p.add_argument("--database-url", default=None, help="the server's database URL")
    return p


def _stored_match(args: argparse.Namespace, match_id: str) -> MatchLog:
    """The match ``match_id`` from the server's database (``--data`` or ``--database-url``)."""
    import asyncio

    from ..engine import Ruleset
    from ..records.matches import split_log
    from ..records.replay import parse_match_id
    from ..store import StoreError
    from ..store.sql import open_store

    table_id, match_no = parse_match_id(match_id)
    url = data_database(args.data, args.database_url)

    async def read() -> MatchLog | None:
        store = await open_store(url)
        try:
            record = await store.get_table(table_id)
            entries = await store.log(table_id) if record is not None else []
        finally:
            await store.close()
        if record is None:
            raise CommandError(f"the database has no table {table_id}")
        names = [s.name for s in record.seats]
        rules = Ruleset.from_json(record.rules)
        found = split_log(table_id, rules, record.seed, entries, names)
        return next((m for m in found if m.match_no == match_no), None)

    try:
        match = asyncio.run(read())
    except StoreError as e:
        raise CommandError(f"cannot read the database: {e}") from None
    if match is None:
        raise CommandError(f"table {table_id} has no match {match_no}")
    return match


def _load_file(path: Path) -> MatchLog:
    from ..records.replay import load_export

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CommandError(f"cannot read {path}: {e}") from None
    except ValueError as e:
        raise CommandError(f"{path} is not JSON: {e}") from None
    return load_export(data)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..records.replay import Replay, ReplayError, export
    from ..records.replay_text import print_replay

    try:
        target = Path(args.match)
        from_file = not args.export and target.is_file()
        match = _load_file(target) if from_file else _stored_match(args, args.match)
        replay = Replay(match)
        if not replay.finished:
            raise CommandError(f"match {match.match_id} is still being played: no replay yet")
        if args.export:
            if not args.output:
                raise CommandError("--export needs -o FILE")
            text = json.dumps(export(match), indent=1) + "\n"
            try:
                Path(args.output).write_text(text, encoding="utf-8")
            except OSError as e:
                raise CommandError(f"cannot write {args.output}: {e.strerror}") from None
            print(f"facedown replay: {match.match_id} written to {args.output}")
            return 0
        if args.seat is not None and args.seat >= replay.players:
            raise CommandError(f"there is no seat {args.seat} (the match had {replay.players})")
        console = Console(highlight=False, soft_wrap=True)
        knowledge = True if args.knowledge else None
        print_replay(console, replay, args.seat, round_no=args.round, knowledge=knowledge)
    except ReplayError as e:
        raise CommandError(str(e)) from None
    return 0
