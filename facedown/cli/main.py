"""The entry point: the parser built from the command modules, and what a refusal looks like.

Bad input never ends in a traceback: argparse refuses malformed arguments, and a command that
meets a problem it can name raises :class:`CommandError`; both print one line and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import backup, db, docs, play, replay, scenario, scoreboard, serve, sim, train
from .common import Command, CommandError, HelpFormatter, Parser

USAGE = "Facedown: the face-down memory card games Boyo, Cabo, Kivo and Kaboom."
EXIT_STATUS = (
    "Exit status: 0 done, 1 a failure (a scenario, a damaged database), 2 bad input (one line "
    "says why), 130 interrupted with Ctrl-C."
)

# The commands, in the order facedown --help lists them.
COMMAND_MODULES: tuple[Command, ...] = (
    scenario,
    play,
    serve,
    backup,
    sim,
    train,
    scoreboard,
    docs,
    replay,
    db,
)
# The order of its examples: playing first, then serving, then developing Facedown.
EXAMPLE_ORDER = (
    "play",
    "scoreboard",
    "serve",
    "sim",
    "train",
    "replay",
    "backup",
    "db",
    "scenario",
    "docs",
)

# What each command is for, and one example of it (facedown --help, facedown COMMAND --help).
COMMANDS: dict[str, tuple[str, str]] = {
    command.NAME: (command.SUMMARY, command.EXAMPLE)
    for name in EXAMPLE_ORDER
    for command in COMMAND_MODULES
    if name == command.NAME
}


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    examples = "\n".join(f"  {example}" for _, example in COMMANDS.values())
    parser = Parser(
        prog="facedown",
        description=USAGE,
        epilog=f"Examples:\n{examples}\n\nfacedown COMMAND --help: that command's options. "
        f"{EXIT_STATUS}",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"facedown {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for command in COMMAND_MODULES:
        command.add_parser(sub).set_defaults(func=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        code: int = args.func(args)
    except CommandError as e:
        command = " ".join(filter(None, [args.command, getattr(args, "db_command", None)]))
        print(f"facedown {command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: leave quietly, as a shell expects (128 + SIGINT)
        print(file=sys.stderr)
        return 130
    return code
