"""``facedown play``: a match in the terminal against bots."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from .common import PRESET_NAMES, command_parser, seats

if TYPE_CHECKING:
    from .common import Subparsers

NAME = "play"
SUMMARY = "play a match in the terminal against bots"
EXAMPLE = "facedown play --preset kivo --players 3"


def _levels() -> list[str]:
    from ..bots.registry import LEVELS

    return list(LEVELS)


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.add_argument("--preset", default="cabo", choices=PRESET_NAMES, help="the game: %(choices)s")
    p.add_argument("--players", type=seats, default=3, help="seats, you included (2 to 8)")
    p.add_argument("--seed", type=int, default=None, help="the deal's seed (default: a random one)")
    p.add_argument(
        "--bots",
        default="medium",
        choices=_levels(),
        help="bot level of the other seats: %(choices)s",
    )
    p.add_argument(
        "--recollection",
        action="store_true",
        help="a memory aid: the board keeps every card you have seen (marked *); without it "
        "a card shown to you alone is cleared from the screen once its moment is over",
    )
    return p


def run(args: argparse.Namespace) -> int:
    import shutil

    from ..terminal.terminal import play

    return play(
        args.preset,
        players=args.players,
        seed=args.seed,
        bots=args.bots,
        recollection=args.recollection,
        width=shutil.get_terminal_size().columns,
        color=sys.stdout.isatty() and "NO_COLOR" not in os.environ,
    )
