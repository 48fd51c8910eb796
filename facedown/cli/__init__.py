"""The ``facedown`` command: a thin layer over the library (the library never imports it).

One module per command, in the order ``facedown --help`` lists them:

- ``scenario``: check a rule, run scenario files (or folders of them);
- ``play``: a match in the terminal against bots;
- ``serve``: the game server and the web client;
- ``backup``: copy the server's live SQLite database to a new file;
- ``sim``: a bot tournament, win rates with 95% intervals;
- ``scoreboard``: score a game played with paper cards, round by round;
- ``docs``: regenerate the generated documents;
- ``replay``: print a finished match step by step;
- ``db``: manage the server's database (``db upgrade``).

``main`` builds the parser from them (``main.COMMAND_MODULES``) and runs the command asked for;
``common`` holds what they share: ``CommandError``, the parser and help classes, and the
argument types and checks (ports, hosts, seconds, counts, folders).

A command module looks like this (``common.Command``)::

    NAME = "play"
    SUMMARY = "play a match in the terminal against bots"  # in facedown --help
    EXAMPLE = "facedown play --preset kivo --players 3"  # and in facedown play --help


    def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
        p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
        p.add_argument("--players", type=seats, default=3, help="seats, you included")
        return p


    def run(args: argparse.Namespace) -> int:  # the exit status
        from ..terminal.terminal import play  # the heavy imports here, never at the top

        return play(...)

Loading a command module imports the standard library and ``common`` only (building ``play``'s
parser reads the bot levels): building the parser, for any command, imports no module of
``facedown.server``, so ``facedown --help`` stays fast (tests/test_cli.py checks it). A new
command is a module added to ``main.COMMAND_MODULES``, its name to ``main.EXAMPLE_ORDER``.

Bad input never ends in a traceback: argparse refuses malformed arguments, and a command that
meets a problem it can name raises ``CommandError``; both print one line and exit 2.
"""

from .common import CommandError
from .main import COMMANDS, build_parser, main

__all__ = ["COMMANDS", "CommandError", "build_parser", "main"]
