"""``facedown train``: fit the learned level's value network by self-play, from a seed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .common import command_parser, count, interval, table_list

if TYPE_CHECKING:
    from .common import Subparsers

NAME = "train"
SUMMARY = "train the learned bot's value network by self-play (resumable)"
EXAMPLE = "facedown train --seed 1 --hours 2 --checkpoints train-learned"


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.add_argument("--seed", type=int, default=1, help="the seed every figure follows from")
    p.add_argument("--checkpoints", type=Path, default=Path("train-learned"), help="folder")
    p.add_argument("--resume", action="store_true", help="go on from the checkpoint folder")
    p.add_argument("--steps", type=count(1), default=None, help="stop after this many steps")
    p.add_argument(
        "--hours", type=interval(0, 1000, " hours"), default=2.0, help="stop after this long"
    )
    p.add_argument("--rounds", type=count(1), default=60, help="rounds per table per step")
    p.add_argument("--epochs", type=count(1), default=4, help="passes over the data per step")
    p.add_argument("--hidden", type=count(1, 4096), default=64, help="hidden units")
    p.add_argument("--lr", type=interval(0, 1), default=1e-3, help="Adam's step size")
    p.add_argument("--batch", type=count(1), default=1024, help="rows per Adam step")
    p.add_argument("--held-out", type=count(1), default=150, help="held-out rounds per table")
    p.add_argument("--eval-every", type=count(0), default=5, help="steps between matches (0: none)")
    p.add_argument("--eval-rounds", type=count(2), default=100, help="rounds of each match")
    p.add_argument(
        "--eval-tables",
        type=table_list,
        default=[("kivo", 2)],
        help="matches against expert, PRESET:SEATS separated by commas (default kivo:2)",
    )
    p.add_argument("--jobs", type=count(1, 64), default=2, help="processes to play on")
    p.add_argument("--out", type=Path, default=None, help="also write the final weights here")
    return p


def run(args: argparse.Namespace) -> int:
    from ..train import train

    return train(args)
