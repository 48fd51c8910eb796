"""``facedown sim``: a bot tournament, its win rates with 95% intervals (on the engine, or on the
vectorised batch)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .common import PRESET_NAMES, CommandError, command_parser, count, seats, writable

if TYPE_CHECKING:
    from .common import Subparsers

NAME = "sim"
SUMMARY = "a bot tournament: win rates with 95%% intervals"
EXAMPLE = "facedown sim --players 4 --bots hard,random --games 500"


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.add_argument("--preset", default="cabo", choices=PRESET_NAMES, help="the game: %(choices)s")
    p.add_argument("--players", type=seats, default=4, help="seats (2 to 8)")
    p.add_argument(
        "--bots",
        default=None,
        help="comma-separated bots, one per seat (repeated to fill the table): a level "
        "(random, easy, medium, hard, expert, learned) with options in brackets if wanted, e.g. "
        "'expert(budget_ms=20)', module:Class, or cmd:COMMAND; with --batch the batch's "
        "players batch-random and batch-easy (default: random; batch-random with --batch)",
    )
    p.add_argument("--games", type=count(1), default=100, help="matches (or rounds) to play")
    p.add_argument("--jobs", type=count(1), default=1, help="processes to play on")
    p.add_argument("--seed", type=int, default=0, help="the first game's seed")
    p.add_argument(
        "--unit", choices=["match", "round"], default="match", help="a game is a match or a round"
    )
    p.add_argument("--options", default=None, help="ruleset options as a JSON object")
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="deal each deal once per seat rotation (--games a multiple of --players)",
    )
    p.add_argument("--out", default=None, help="write per-game rows to a .csv or .json file")
    p.add_argument(
        "--timeout", type=float, default=5.0, help="seconds a cmd: bot may take to decide"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--batch",
        action="store_true",
        help="play on the vectorised batch (facedown.batch): its own players batch-random and "
        "batch-easy (not the bot levels), every preset (TAP windows as docs/batch.md says)",
    )
    return p


def run(args: argparse.Namespace) -> int:
    import time

    from ..sim import (
        ProgressBar,
        SimConfig,
        SimError,
        format_standings,
        split_bots,
        standings,
        write_results,
    )
    from ..sim import run as play_games

    try:
        options = json.loads(args.options) if args.options else {}
    except ValueError as e:
        raise CommandError(f"--options is not JSON: {e}") from None
    try:
        bots = split_bots(args.bots or ("batch-random" if args.batch else "random"))
    except SimError as e:
        raise CommandError(str(e)) from None
    config = SimConfig(
        preset=args.preset,
        players=args.players,
        bots=bots,
        games=args.games,
        seed=args.seed,
        unit=args.unit,
        options=options,
        timeout=args.timeout,
        duplicate=args.duplicate,
    )
    if args.out:
        writable(Path(args.out))
    show = not args.quiet and sys.stderr.isatty()
    start = time.perf_counter()
    try:
        if args.batch:
            from ..batch.tournament import play_batch

            results = play_batch(config, progress=ProgressBar(args.games) if show else None)
        else:
            results = play_games(
                config, jobs=args.jobs, progress=ProgressBar(args.games) if show else None
            )
        if args.out:
            write_results(Path(args.out), config, results)
    except (SimError, ValueError) as e:
        raise CommandError(str(e)) from None
    seconds = time.perf_counter() - start
    games = f"{config.games} {'matches' if config.unit == 'match' else 'rounds'}"
    if config.duplicate:
        games += f" on {config.games // config.players} duplicate deals"
    print(
        f"{config.preset}, {config.players} players, {games} (seed {config.seed}): "
        f"{seconds:.1f} s, {config.games / seconds:.1f} games/s"
    )
    print(format_standings(standings(results)))
    return 0
