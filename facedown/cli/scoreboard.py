"""``facedown scoreboard``: score a game played with paper cards, round by round (the evening
saved after every round, to be carried on with ``--resume``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import PRESET_NAMES, CommandError, command_parser, count, existing_folder, writable

if TYPE_CHECKING:
    from ..records.paperboard import Board
    from .common import Subparsers

NAME = "scoreboard"
SUMMARY = "score a game played with paper cards, round by round"
EXAMPLE = "facedown scoreboard --preset cabo --players Ana,Bo,Cy"


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.add_argument("--preset", default="cabo", choices=PRESET_NAMES, help="the game: %(choices)s")
    p.add_argument(
        "--players",
        default=None,
        help="the names in seating order: Ana,Bo,Cy (needed unless --resume)",
    )
    p.add_argument(
        "--rounds",
        type=count(1, 100),
        default=None,
        help="rounds in the match (default: the game's own)",
    )
    p.add_argument("--sudden-death", action="store_true", help="one more round on a tie")
    p.add_argument("--placement", default=None, help="placement points for 1st, 2nd, ...: 5,3,1")
    p.add_argument(
        "--placement-rounds", type=count(1, 100), default=5, help="rounds of a placement match"
    )
    p.add_argument("--csv", default=None, help="write the board to this .csv file at the end")
    p.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="the evening is saved here after every round (default: "
        "$XDG_STATE_HOME/facedown/scoreboard.json, or ~/.local/state/...)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="carry on the evening saved in the --save file (after quit, Ctrl-C or a closed "
        "terminal): its players and scoring, its rounds so far",
    )
    return p


def _names(text: str) -> list[str]:
    from ..engine import MAX_PLAYERS, MIN_PLAYERS
    from ..server.base.text import NAME_LENGTH, clean

    try:
        names = [clean(name, NAME_LENGTH) for name in text.split(",")]
    except ValueError as e:
        raise CommandError(f"--players: a name {e}") from None
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        count = f"{MIN_PLAYERS} to {MAX_PLAYERS}"
        raise CommandError(f"--players names {count} players, not {len(names)}")
    if len({n.casefold() for n in names}) != len(names):
        raise CommandError("--players: each player needs a name of their own")
    return names


def _points(text: str) -> list[int]:
    try:
        return [int(p) for p in text.split(",")]
    except ValueError:
        raise CommandError(f"--placement {text!r} is not whole numbers split by commas") from None


def _new_board(args: argparse.Namespace) -> tuple[Board, dict[str, Any]]:
    """A new evening's board from the arguments, and its ruleset options."""
    from ..engine import RulesetError, TallyError
    from ..records.paperboard import Board

    names = _names(args.players)
    options: dict[str, Any] = {}
    if args.rounds is not None:
        options["rounds"] = args.rounds
    if args.sudden_death:
        options["sudden_death"] = True
    placement: dict[str, object] | None = None
    if args.placement is not None:
        placement = {"points": _points(args.placement), "rounds": args.placement_rounds}
    try:
        return Board.make(names, args.preset, options, placement), options
    except (RulesetError, TallyError) as e:
        raise CommandError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    from ..records.scoresheet import default_save_path, load_evening, unfinished
    from ..records.scoresheet import run as score_evening

    save = Path(args.save) if args.save else default_save_path()
    if args.csv is not None:
        if not args.csv.endswith(".csv"):
            raise CommandError(f"cannot write {args.csv}: the board is written as .csv")
        writable(Path(args.csv))
    if args.resume:
        if args.players is not None:
            raise CommandError("--resume carries on the saved evening: give no --players")
        try:
            board, saved_options = load_evening(save)
        except ValueError as e:
            raise CommandError(str(e)) from None
        return score_evening(board, saved_options, Path(args.csv) if args.csv else None, save)
    if args.players is None:
        raise CommandError("give --players (the names in seating order), or --resume")
    board, options = _new_board(args)
    saved = unfinished(save)
    if saved is not None:
        raise CommandError(
            f"an unfinished evening ({saved}) is saved in {save}: carry on with --resume, "
            "give --save FILE for a new one, or delete that file"
        )
    if save.parent == default_save_path().parent:
        save.parent.mkdir(parents=True, exist_ok=True)  # our own state folder
    else:
        existing_folder(save, "the evening")
    return score_evening(board, options, Path(args.csv) if args.csv else None, save)
