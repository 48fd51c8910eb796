"""What the commands share: the error that ends a command in one line, the parser classes, the
parser of a command, and the argument types and checks (ports, hosts, seconds, counts, folders).

Nothing here imports more than the standard library when the module is loaded: a check that
needs the engine or the store imports it when it runs.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Protocol

PRESET_NAMES = ["boyo", "cabo", "kivo", "kaboom"]


class CommandError(Exception):
    """A problem with what the user asked for, said in one line (exit status 2)."""


class Command(Protocol):
    """A command module: its name, what it is for and one example of it (``facedown --help``,
    ``facedown NAME --help``), its parser and what it does (the exit status)."""

    NAME: str
    SUMMARY: str
    EXAMPLE: str

    def add_parser(self, sub: Subparsers) -> argparse.ArgumentParser: ...

    def run(self, args: argparse.Namespace) -> int: ...


class Parser(argparse.ArgumentParser):
    """A parser whose refusal is one line (not the usage, then the error); the commands' parsers
    are of its class too (argparse makes a subparser of its parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Parser]  # where a command adds its parser


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help that shows every option's default (unless its text already speaks of it)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            not action.option_strings
            or action.required
            or action.default is argparse.SUPPRESS
            or "default" in text
        ):
            return text
        if action.default is None:
            shown = "none"
        elif action.default is False:
            shown = "off"
        else:
            shown = "%(default)s"
        return f"{text} (default: {shown})"


def command_parser(
    sub: Subparsers, name: str, summary: str, example: str
) -> argparse.ArgumentParser:
    """The parser of command ``name``: what it is for, and its example.  ``summary`` is written
    for the commands list, where argparse %-formats it (a percent sign as ``%%``); the
    description is printed as it is."""
    text = summary.replace("%%", "%")
    return sub.add_parser(
        name,
        help=summary,
        description=f"{text[0].upper()}{text[1:]}.",
        epilog=f"Example:\n  {example}",
        formatter_class=HelpFormatter,
    )


class Choices:
    """An option's choices, read from the module that owns them when first needed (to check a
    value, or to print help), so that building the parser for any command imports no more of
    the server than it did (the mail module alone brings asyncio, ssl and aiosmtplib).  Set on
    the option once it is added: add_argument itself formats the choices (a check of metavar)."""

    def __init__(self, load: Callable[[], Sequence[str]]) -> None:
        self.load = load

    def __contains__(self, value: object) -> bool:
        return value in self.load()

    def __iter__(self) -> Iterator[str]:
        return iter(self.load())


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: ports are 1 to 65535")
    return value


def host_name(text: str) -> str:
    """An argparse type: an address or a host name this machine can resolve."""
    import ipaddress
    import socket

    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        pass
    if not text or len(text) > 253 or any(c.isspace() or c in "/:@" for c in text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an address or a host name")
    try:
        socket.getaddrinfo(text, None)
    except (OSError, UnicodeError):
        raise argparse.ArgumentTypeError(f"{text!r}: no such host") from None
    return text


def count(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (to ``high``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{value} is not {span}")
        return value

    return parse


def seconds(text: str) -> float:
    """An argparse type: a number of seconds from 0 to 3600."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 3600:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{value:g} is not from 0 to 3600 seconds")
    return value


def interval(low: float, high: float, unit: str = "") -> Callable[[str], float]:
    """An argparse type: a number from ``low`` to ``high``, above ``low`` when ``low`` is 0
    (a time or a rate of 0 means nothing), in ``unit``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        above = value > low if low == 0 else value >= low
        if not (above and value <= high):  # also refuses nan
            span = f"above 0 and at most {high:g}" if low == 0 else f"from {low:g} to {high:g}"
            raise argparse.ArgumentTypeError(f"{value:g} is not {span}{unit}")
        return value

    return parse


def web_url(text: str) -> str:
    """An argparse type: an http:// or https:// URL with a host (a base for links); empty:
    none (relative links)."""
    from urllib.parse import urlsplit

    if not text:
        return text

    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a web address: give http://HOST[:PORT] or https://HOST"
        )
    return text


def table_list(text: str) -> list[tuple[str, int]]:
    """An argparse type: tables as PRESET:SEATS, separated by commas (none: an empty list)."""
    from ..engine import PRESETS

    tables = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        preset, colon, count_text = item.partition(":")
        if not colon or preset not in PRESETS:
            known = ", ".join(sorted(PRESETS))
            raise argparse.ArgumentTypeError(f"{item!r} is not PRESET:SEATS (presets: {known})")
        tables.append((preset, seats(count_text)))
    return tables


def seats(text: str) -> int:
    """An argparse type: a number of seats the engine deals for."""
    from ..engine import MAX_PLAYERS, MIN_PLAYERS

    return count(MIN_PLAYERS, MAX_PLAYERS)(text)


def data_database(data: str, database_url: str | None) -> str:
    """The database a command reads: ``database_url``, else the data folder's SQLite file,
    which must be there (no folder is made on the way)."""
    from ..store.database import DATA_FILE, data_folder_url

    if database_url:
        return database_url
    path = Path(data) / DATA_FILE
    if not path.is_file():
        raise CommandError(f"there is no database {path} (give --data or --database-url)")
    return data_folder_url(Path(data))


def existing_folder(path: Path, what: str) -> None:
    """Refuse a path whose folder does not exist (nothing is made on the way)."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise CommandError(f"cannot write {what} {path}: there is no folder {folder}")


def writable(path: Path) -> None:
    """Refuse at once a results file that cannot be written (not after the games)."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise CommandError(f"cannot write {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise CommandError(f"cannot write {path}: the folder {folder} is not writable")
    if path.suffix not in (".csv", ".json"):
        raise CommandError(f"cannot write {path}: results are written as .csv or .json")


def sqlite_folder(url: str) -> None:
    """A SQLite URL's file lies in a folder that exists (none is made for it)."""
    from ..store import StoreError, sqlite_file

    try:
        path = sqlite_file(url)
    except StoreError as e:
        raise CommandError(f"cannot use the database URL {url!r}: {e}") from None
    if path is not None and not path.parent.is_dir():
        raise CommandError(f"cannot use the database URL {url!r}: there is no folder {path.parent}")
