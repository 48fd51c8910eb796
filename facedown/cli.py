"""The ``facedown`` command: a thin layer over the library (the library never imports it).

Bad input never ends in a traceback: argparse refuses malformed arguments, and a command that
meets a problem it can name raises :class:`CommandError`; both print one line and exit 2.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from .matches import MatchLog
    from .paperboard import Board
    from .server.settings import ServerSettings


USAGE = "Facedown: the face-down memory card games Boyo, Cabo, Kivo and Kaboom."

# What each command is for, and one example of it (facedown --help, facedown COMMAND --help).
COMMANDS: dict[str, tuple[str, str]] = {
    "play": (
        "play a match in the terminal against bots",
        "facedown play --preset kivo --players 3",
    ),
    "scoreboard": (
        "score a game played with paper cards, round by round",
        "facedown scoreboard --preset cabo --players Ana,Bo,Cy",
    ),
    "serve": ("run the game server and the web client", "facedown serve --port 8000"),
    "sim": (
        "a bot tournament: win rates with 95%% intervals",
        "facedown sim --players 4 --bots hard,random --games 500",
    ),
    "replay": (
        "print a finished match step by step (face up, or as one seat saw it)",
        "facedown replay TABLE_ID/1 --seat 0",
    ),
    "backup": (
        "copy the server's live SQLite database to a new file",
        "facedown backup backups/facedown-monday.db --data data",
    ),
    "db": ("manage the server's database", "facedown db upgrade --url sqlite:///data/facedown.db"),
    "scenario": (
        "check a rule: run scenario files (or folders of them)",
        "facedown scenario scenarios/cabo",
    ),
    "docs": (
        "regenerate the generated documents (for developers of Facedown)",
        "facedown docs --check",
    ),
    "train": (
        "train the learned bot's value network by self-play (resumable)",
        "facedown train --seed 1 --hours 2 --checkpoints train-learned",
    ),
}
EXIT_STATUS = (
    "Exit status: 0 done, 1 a failure (a scenario, a damaged database), 2 bad input (one line "
    "says why), 130 interrupted with Ctrl-C."
)


class _Parser(argparse.ArgumentParser):
    """A parser whose refusal is one line (not the usage, then the error)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


class _Help(argparse.RawDescriptionHelpFormatter):
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


class _Choices:
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


def _log_formats() -> Sequence[str]:
    from .server.logs import LOG_FORMATS

    return LOG_FORMATS


def _securities() -> Sequence[str]:
    from .server.mail import SECURITIES

    return SECURITIES


def _port(text: str) -> int:
    """An argparse type: a TCP port, 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: ports are 1 to 65535")
    return value


def _host(text: str) -> str:
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


def _check_listen(host: str, port: int) -> None:
    """The server can listen at host:port: refused now, in one line, rather than by uvicorn."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise CommandError(f"cannot listen on {host}: {e.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as e:
            raise CommandError(f"cannot listen on {host} port {port}: {e.strerror}") from None


def _existing_folder(path: Path, what: str) -> None:
    """Refuse a path whose folder does not exist (nothing is made on the way)."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise CommandError(f"cannot write {what} {path}: there is no folder {folder}")


PRESET_NAMES = ["boyo", "cabo", "kivo", "kaboom"]


class CommandError(Exception):
    """A problem with what the user asked for, said in one line (exit status 2)."""


def _count(low: int, high: int | None = None) -> Callable[[str], int]:
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


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds from 0 to 3600."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 3600:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{value:g} is not from 0 to 3600 seconds")
    return value


def _seats(text: str) -> int:
    from .engine import MAX_PLAYERS, MIN_PLAYERS

    return _count(MIN_PLAYERS, MAX_PLAYERS)(text)


def _writable(path: Path) -> None:
    """Refuse at once a results file that cannot be written (not after the games)."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise CommandError(f"cannot write {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise CommandError(f"cannot write {path}: the folder {folder} is not writable")
    if path.suffix not in (".csv", ".json"):
        raise CommandError(f"cannot write {path}: results are written as .csv or .json")


def _check_serve(data: Path, database_url: str | None) -> None:
    """The data folder exists or can be made in a folder that does (only its last level is
    made), and the database URL names a database we can open in a folder that exists."""
    if not data.is_dir() and not data.parent.is_dir():
        raise CommandError(
            f"cannot use {data} as the data folder: there is no folder {data.parent} to make it in"
        )
    try:
        data.mkdir(exist_ok=True)
    except OSError as e:
        raise CommandError(f"cannot use {data} as the data folder: {e.strerror}") from None
    if not os.access(data, os.W_OK):
        raise CommandError(f"cannot use {data} as the data folder: it is not writable")
    if database_url:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError, NoSuchModuleError

        try:
            make_url(database_url).get_dialect()
        except (ArgumentError, NoSuchModuleError, ValueError) as e:
            raise CommandError(f"cannot use the database URL {database_url!r}: {e}") from None
        _sqlite_folder(database_url)


def _sqlite_folder(url: str) -> None:
    """A SQLite URL's file lies in a folder that exists (none is made for it)."""
    from .store import StoreError, sqlite_file

    try:
        path = sqlite_file(url)
    except StoreError as e:
        raise CommandError(f"cannot use the database URL {url!r}: {e}") from None
    if path is not None and not path.parent.is_dir():
        raise CommandError(f"cannot use the database URL {url!r}: there is no folder {path.parent}")


def _scenario_files(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        files += sorted(path.rglob("*.json")) if path.is_dir() else [path]
    return files


def cmd_scenario(args: argparse.Namespace) -> int:
    from .scenario import run_scenario

    failed = malformed = 0
    records = []
    for path in _scenario_files(args.files):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            print(f"FAIL {path}: cannot read: {e}")
            failed += 1
            malformed += 1
            continue
        outcome = run_scenario(data)
        malformed += outcome.malformed
        if args.json:
            records.append({"file": str(path), "passed": outcome.passed, **outcome.record})
            if outcome.failure:
                records[-1]["failure"] = outcome.failure
        elif outcome.passed:
            print(f"PASS {path}: {outcome.name}")
        else:
            print(f"FAIL {path}: {outcome.name}\n     {outcome.failure}")
        failed += not outcome.passed
    if args.json:
        json.dump(records if len(records) != 1 else records[0], sys.stdout, indent=2)
        print()
    elif len(_scenario_files(args.files)) > 1:
        total = len(_scenario_files(args.files))
        print(f"{total - failed} passed, {failed} failed")
    # 2: a file that is not a scenario (bad input); 1: a scenario whose rule failed.
    return 2 if malformed else 1 if failed else 0


def cmd_play(args: argparse.Namespace) -> int:
    import shutil

    from .terminal import play

    return play(
        args.preset,
        players=args.players,
        seed=args.seed,
        bots=args.bots,
        recollection=args.recollection,
        width=shutil.get_terminal_size().columns,
        color=sys.stdout.isatty() and "NO_COLOR" not in os.environ,
    )


def _levels() -> list[str]:
    from .bots.registry import LEVELS

    return list(LEVELS)


def cmd_docs(args: argparse.Namespace) -> int:
    from .docs import GENERATED

    root = Path(args.root)
    stale = []
    for name, make in GENERATED.items():
        path = root / name
        text = make()
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if args.check:
            if current != text:
                stale.append(str(path))
        elif current != text:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"out of date: {', '.join(stale)}: run 'facedown docs'", file=sys.stderr)
        return 1
    return 0


def _serve_refusal(args: argparse.Namespace, settings: ServerSettings) -> str | None:
    """Why ``facedown serve`` with these options cannot start (None: it can)."""
    if args.max_connections_per_address < 1:
        return "--max-connections-per-address must be at least 1"
    if settings.redis_url and not (args.database_url or "").startswith(("postgres", "postgresql")):
        return "a cluster (--redis-url) needs a PostgreSQL --database-url that every process shares"
    if settings.redis_url and not os.environ.get("FACEDOWN_SECRET"):
        return (
            "a cluster (--redis-url) needs FACEDOWN_SECRET, the same in every process (each "
            "signs and checks the others' session tokens)"
        )
    if settings.smtp_user and not settings.smtp_password:
        return (
            "--smtp-user needs its password in FACEDOWN_SMTP_PASSWORD (never on the command "
            "line, where every user of the machine can read it)"
        )
    if settings.smtp_host and not settings.public_url.startswith(("https://", "http://")):
        return (
            "--smtp-host needs --public-url (https://...): the links in the e-mails (to "
            "confirm an address, to unsubscribe, to the table) must be absolute"
        )
    if not 1.0 <= settings.lease_seconds <= 300.0:
        return "--lease-seconds must be 1 to 300"
    return None


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .server.addresses import LOOPBACK, ClientLimits, proxy_networks
    from .server.app import create_app
    from .server.context import TableConfig
    from .server.logs import log_config
    from .server.ownership import Rebalance
    from .server.serving import log_slow_collections, max_connections, uvicorn_config
    from .server.settings import ServerSettings
    from .store import StoreError, check_database

    _check_serve(Path(args.data), args.database_url)
    try:
        proxy_networks(args.trusted_proxy or ())
    except ValueError as e:
        print(f"facedown serve: --trusted-proxy: {e}", file=sys.stderr)
        return 2
    settings = ServerSettings(
        data_dir=Path(args.data),
        database_url=args.database_url,
        public_url=args.public_url,
        test_hooks=args.test_hooks,
        api_docs=args.api_docs,
        metrics=args.metrics,
        behind_proxy=args.behind_proxy,
        trusted_proxies=tuple(args.trusted_proxy or LOOPBACK),
        request_timeout=args.request_timeout,
        max_connections=args.max_connections,
        clients=ClientLimits(open_connections=args.max_connections_per_address),
        table=TableConfig() if args.bot_delay is None else TableConfig(bot_delay=args.bot_delay),
        crash_at=os.environ.get("FACEDOWN_CRASH_AT") or None,  # a test hook: crashhook.py
        smtp_host=args.smtp_host,
        smtp_port=args.smtp_port,
        smtp_sender=args.smtp_sender,
        smtp_security=args.smtp_security,
        smtp_user=args.smtp_user,
        smtp_password=os.environ.get("FACEDOWN_SMTP_PASSWORD") or None,
        redis_url=args.redis_url,
        lease_seconds=args.lease_seconds,
        rebalance=Rebalance(args.rebalance, args.rebalance_every, args.rebalance_margin),
        bot_processes=args.bot_processes,
    )
    refusal = _serve_refusal(args, settings)
    if refusal is not None:
        print(f"facedown serve: {refusal}", file=sys.stderr)
        return 2
    try:  # a damaged SQLite file is refused here, before anything is served
        check_database(settings.resolved_database_url())
    except StoreError as e:
        print(f"facedown serve: {e}", file=sys.stderr)
        return 1
    _check_listen(args.host, args.port)  # refused in one line, not by uvicorn once started
    try:
        app = create_app(settings)
    except ValueError as e:  # FACEDOWN_CRASH_AT without --test-hooks, or not a window
        print(f"facedown serve: {e}", file=sys.stderr)
        return 2
    if settings.test_hooks:
        print("Facedown: test hooks are on: tables may be dealt as their creator says", flush=True)
    # Fewer, later cyclic-GC passes: a full pass over hundreds of live tables stalls every table
    # at once (latency tail); almost everything here is freed by reference counting anyway.
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    slow = log_slow_collections()  # the collections that still stall every table are in the log
    where = "a process of a cluster" if settings.redis_url else "one process"
    print(
        f"Facedown: http://{args.host}:{args.port}/ (data in {settings.data_dir}; "
        f"at most {max_connections(settings)} connections; {where})",
        flush=True,
    )
    # The limits and timeouts of the open network: server/serving.py and docs/server.md.
    config = uvicorn_config(
        app,
        settings,
        host=args.host,
        port=args.port,
        log_config=log_config(args.log_format, args.log_level),
        log_level=args.log_level,
    )
    try:
        uvicorn.Server(config).run()
    finally:  # as it was (serve called in a process that goes on: a test, an embedding)
        gc.callbacks.remove(slow)
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    return 0


def cmd_sim(args: argparse.Namespace) -> int:
    import time

    from .sim import (
        ProgressBar,
        SimConfig,
        SimError,
        format_standings,
        run,
        split_bots,
        standings,
        write_results,
    )

    try:
        options = json.loads(args.options) if args.options else {}
    except ValueError as e:
        print(f"error: --options is not JSON: {e}", file=sys.stderr)
        return 2
    try:
        bots = split_bots(args.bots)
    except SimError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
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
        _writable(Path(args.out))
    show = not args.quiet and sys.stderr.isatty()
    start = time.perf_counter()
    try:
        if args.batch:
            from .batch.tournament import play_batch

            results = play_batch(config)
        else:
            results = run(
                config, jobs=args.jobs, progress=ProgressBar(args.games) if show else None
            )
        if args.out:
            write_results(Path(args.out), config, results)
    except (SimError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
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


def _names(text: str) -> list[str]:
    from .engine import MAX_PLAYERS, MIN_PLAYERS
    from .server.text import NAME_LENGTH, clean

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
    from .engine import RulesetError, TallyError
    from .paperboard import Board

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


def cmd_scoreboard(args: argparse.Namespace) -> int:
    from .scoresheet import default_save_path, load_evening, run, unfinished

    save = Path(args.save) if args.save else default_save_path()
    if args.csv is not None:
        if not args.csv.endswith(".csv"):
            raise CommandError(f"cannot write {args.csv}: the board is written as .csv")
        _writable(Path(args.csv))
    if args.resume:
        if args.players is not None:
            raise CommandError("--resume carries on the saved evening: give no --players")
        try:
            board, saved_options = load_evening(save)
        except ValueError as e:
            raise CommandError(str(e)) from None
        return run(board, saved_options, Path(args.csv) if args.csv else None, save)
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
        _existing_folder(save, "the evening")
    return run(board, options, Path(args.csv) if args.csv else None, save)


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    import asyncio

    from .store import StoreError, upgrade

    _sqlite_folder(args.url)
    try:
        asyncio.run(upgrade(args.url))
    except StoreError as e:  # a URL it cannot use: bad, unreachable, or not a database
        raise CommandError(str(e)) from None
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    from .server.settings import ServerSettings
    from .store import StoreError, backup_sqlite

    _existing_folder(Path(args.dest), "the copy")
    settings = ServerSettings(data_dir=Path(args.data), database_url=args.database_url)
    try:
        source = backup_sqlite(settings.resolved_database_url(), Path(args.dest))
    except StoreError as e:
        print(f"facedown backup: {e}", file=sys.stderr)
        return 1
    print(f"facedown backup: {source} copied to {args.dest}")
    print(
        "facedown backup: session tokens are signed with FACEDOWN_SECRET or the data folder's "
        "secret.key: keep that with the copy, or players cannot rejoin their seats"
    )
    return 0


def _stored_match(args: argparse.Namespace, match_id: str) -> MatchLog:
    """The match ``match_id`` from the server's database (``--data`` or ``--database-url``)."""
    import asyncio

    from .engine import Ruleset
    from .matches import split_log
    from .replay import parse_match_id
    from .store import StoreError, open_store

    table_id, match_no = parse_match_id(match_id)
    url = args.database_url
    if not url:
        path = Path(args.data) / "facedown.db"
        if not path.is_file():
            raise CommandError(f"there is no database {path} (give --data or --database-url)")
        url = f"sqlite:///{path.resolve()}"

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
    from .replay import load_export

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CommandError(f"cannot read {path}: {e}") from None
    except ValueError as e:
        raise CommandError(f"{path} is not JSON: {e}") from None
    return load_export(data)


def cmd_replay(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .replay import Replay, ReplayError, export
    from .replay_text import print_replay

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


def _command(sub: argparse._SubParsersAction, name: str) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """The parser of command ``name``: what it is for, and its example."""
    words, example = COMMANDS[name]
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=words,
        description=f"{words[0].upper()}{words[1:]}.",
        epilog=f"Example:\n  {example}",
        formatter_class=_Help,
    )
    return parser


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    examples = "\n".join(f"  {example}" for _, example in COMMANDS.values())
    parser = _Parser(
        prog="facedown",
        description=USAGE,
        epilog=f"Examples:\n{examples}\n\nfacedown COMMAND --help: that command's options. "
        f"{EXIT_STATUS}",
        formatter_class=_Help,
    )
    parser.add_argument("--version", action="version", version=f"facedown {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")

    p = _command(sub, "scenario")
    p.add_argument("files", nargs="+", help="scenario files (.json) or folders of them")
    p.add_argument("--json", action="store_true", help="print what actually happened")
    p.set_defaults(func=cmd_scenario)

    p = _command(sub, "play")
    p.add_argument("--preset", default="cabo", choices=PRESET_NAMES, help="the game: %(choices)s")
    p.add_argument("--players", type=_seats, default=3, help="seats, you included (2 to 8)")
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
    p.set_defaults(func=cmd_play)

    p = _command(sub, "serve")
    p.add_argument(
        "--host", type=_host, default="127.0.0.1", help="the address to listen on (0.0.0.0: all)"
    )
    p.add_argument("--port", type=_port, default=8000, help="the port to listen on (1 to 65535)")
    p.add_argument("--data", default="data", help="folder for the SQLite database and the key")
    p.add_argument(
        "--database-url",
        default=os.environ.get("FACEDOWN_DATABASE_URL") or None,
        help="e.g. postgresql://user@host/db (also FACEDOWN_DATABASE_URL; default: SQLite in "
        "--data)",
    )
    p.add_argument(
        "--redis-url",
        default=os.environ.get("FACEDOWN_REDIS_URL") or None,
        help="join a cluster of processes on this Redis, e.g. redis://host:6379/0 (needs a "
        "PostgreSQL --database-url every process shares; also FACEDOWN_REDIS_URL)",
    )
    p.add_argument(
        "--lease-seconds",
        type=float,
        default=5.0,
        help="in a cluster: how long a table's owner, or the process running ranked matchmaking, "
        "may be silent before another process takes the table or the matchmaking over "
        "(default 5)",
    )
    p.add_argument(
        "--rebalance",
        choices=("idle", "all", "off"),
        default="idle",
        help="in a cluster: a process owning clearly more tables than its share hands some "
        "over to the others; idle: only tables nobody is connected to (default), all: those "
        "first, then tables whose clients are told to reconnect, off: none",
    )
    p.add_argument(
        "--rebalance-every",
        type=_seconds,
        default=5.0,
        metavar="SECONDS",
        help="in a cluster: seconds between a process's looks at its share of the tables "
        "(default 5; it looks once a second at most)",
    )
    p.add_argument(
        "--rebalance-margin",
        type=_count(1),
        default=2,
        metavar="TABLES",
        help="in a cluster: tables a process may own beyond its fair share before it hands "
        "any over (default 2, at least 1: at 0 the rounding of shares could send a table "
        "back and forth)",
    )
    p.add_argument(
        "--bot-processes",
        type=int,
        default=1,
        help="worker processes in which expert bots think, off the process that serves the "
        "sockets (default 1; 0: in a thread)",
    )
    p.add_argument("--public-url", default="", help="base URL of the links handed out")
    p.add_argument(
        "--test-hooks",
        action="store_true",
        default=os.environ.get("FACEDOWN_TEST_HOOKS") == "1",
        help="let POST /api/tables choose the seed and stack the deal (for tests only; "
        "also FACEDOWN_TEST_HOOKS=1)",
    )
    p.add_argument(
        "--request-timeout",
        type=float,
        default=10.0,
        help="seconds a request may take to arrive whole, headers and body (default 10)",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="open connections at most, more are closed at once (default 1000, or fewer "
        "under a lower open-file limit)",
    )
    p.add_argument(
        "--max-connections-per-address",
        type=int,
        default=32,
        help="open connections (HTTP and WebSocket) one client address may hold, more are "
        "closed at once (default 32; a trusted proxy is not counted)",
    )
    p.add_argument(
        "--api-docs",
        action="store_true",
        help="serve /openapi.json and a page describing it at /docs (off by default)",
    )
    p.add_argument(
        "--behind-proxy",
        action="store_true",
        help="count clients by the last X-Forwarded-For address (only behind a reverse proxy "
        "that sets it, such as deploy/nginx/facedown.conf)",
    )
    p.add_argument(
        "--trusted-proxy",
        action="append",
        metavar="ADDR",
        help="with --behind-proxy: an address or network (10.0.0.0/24) of a proxy whose "
        "X-Forwarded-For and X-Forwarded-Proto are believed; repeatable (default 127.0.0.1 "
        "and ::1); from any other peer they are ignored",
    )
    p.add_argument(
        "--metrics",
        action="store_true",
        help="serve Prometheus metrics at /metrics (off by default)",
    )
    p.add_argument(
        "--log-format",
        default="text",
        help="text lines, or one JSON object per line for a log collector (default text)",
    ).choices = _Choices(_log_formats)
    p.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="warning",
        help="the least severe log records written (default warning)",
    )
    p.add_argument(
        "--bot-delay",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="how long a bot waits before it plays (default 0.7; small for load tests)",
    )
    p.add_argument(
        "--smtp-host",
        default=None,
        help="an SMTP server for turn e-mails to players who gave an address (default: none)",
    )
    p.add_argument("--smtp-port", type=_port, default=25, help="the SMTP server's port")
    p.add_argument(
        "--smtp-sender",
        default="facedown@localhost",
        help="the From address of turn e-mails (default facedown@localhost)",
    )
    p.add_argument(
        "--smtp-security",
        default="auto",
        help="auto: STARTTLS when the SMTP server offers it (default); starttls: send nothing "
        "unless it does; tls: TLS from the start (usually port 465)",
    ).choices = _Choices(_securities)
    p.add_argument(
        "--smtp-user",
        default=None,
        help="log in to the SMTP server as this account; its password is read from "
        "FACEDOWN_SMTP_PASSWORD (default: no login)",
    )
    p.set_defaults(func=cmd_serve)

    p = _command(sub, "backup")
    p.add_argument("dest", help="the new file, in a folder that exists")
    p.add_argument("--data", default="data", help="the server's data folder")
    p.add_argument("--database-url", default=None, help="sqlite:///path/to/facedown.db")
    p.set_defaults(func=cmd_backup)

    p = _command(sub, "sim")
    p.add_argument("--preset", default="cabo", choices=PRESET_NAMES, help="the game: %(choices)s")
    p.add_argument("--players", type=_seats, default=4, help="seats (2 to 8)")
    p.add_argument(
        "--bots",
        default="random",
        help="comma-separated bots, one per seat (repeated to fill the table): a level "
        "(random, easy, medium, hard, expert, learned) with options in brackets if wanted, e.g. "
        "'expert(budget_ms=20)', module:Class, or cmd:COMMAND",
    )
    p.add_argument("--games", type=_count(1), default=100, help="matches (or rounds) to play")
    p.add_argument("--jobs", type=_count(1), default=1, help="processes to play on")
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
        help="play on the vectorised batch (facedown.batch): its random and easy players, "
        "every preset (TAP windows as docs/batch.md says)",
    )
    p.set_defaults(func=cmd_sim)

    from .train import add_arguments, train

    p = _command(sub, "train")
    add_arguments(p)
    p.set_defaults(func=train)

    p = _command(sub, "scoreboard")
    p.add_argument("--preset", default="cabo", choices=PRESET_NAMES, help="the game: %(choices)s")
    p.add_argument(
        "--players",
        default=None,
        help="the names in seating order: Ana,Bo,Cy (needed unless --resume)",
    )
    p.add_argument(
        "--rounds",
        type=_count(1, 100),
        default=None,
        help="rounds in the match (default: the game's own)",
    )
    p.add_argument("--sudden-death", action="store_true", help="one more round on a tie")
    p.add_argument("--placement", default=None, help="placement points for 1st, 2nd, ...: 5,3,1")
    p.add_argument(
        "--placement-rounds", type=_count(1, 100), default=5, help="rounds of a placement match"
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
    p.set_defaults(func=cmd_scoreboard)

    p = _command(sub, "docs")
    p.epilog = (
        f"{p.epilog}\n\nIt writes docs/rulesets.md, docs/protocol.md, docs/openapi.json and "
        "web/src/lib/wire.ts."
    )
    p.add_argument("--root", default=".", help="the project's folder")
    p.add_argument("--check", action="store_true", help="fail when the file is out of date")
    p.set_defaults(func=cmd_docs)

    p = _command(sub, "replay")
    p.add_argument("match", help="a match id <table_id>/<match_no>, or an exported replay file")
    p.add_argument("--seat", type=_count(0), default=None, help="through this seat's eyes")
    p.add_argument("--knowledge", action="store_true", help="with --seat: every card it knew")
    p.add_argument("--round", type=_count(1), default=None, help="only this round")
    p.add_argument("--export", action="store_true", help="write the match to a file (-o FILE)")
    p.add_argument("-o", "--output", default=None, help="the file --export writes")
    p.add_argument("--data", default="data", help="the server's data folder")
    p.add_argument("--database-url", default=None, help="the server's database URL")
    p.set_defaults(func=cmd_replay)

    p = _command(sub, "db")
    db = p.add_subparsers(dest="db_command", required=True, metavar="ACTION", title="actions")
    p = db.add_parser(
        "upgrade",
        help="migrate the database to the newest schema",
        description="Migrate the database to the newest schema. A URL it cannot use (not a "
        "database, unreachable, a SQLite file in a folder that does not exist) is refused in "
        "one line with exit status 2.",
        epilog=f"Example:\n  {COMMANDS['db'][1]}",
        formatter_class=_Help,
    )
    p.add_argument("--url", required=True, help="sqlite:///path/to/facedown.db or postgresql://...")
    p.set_defaults(func=cmd_db_upgrade)
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


if __name__ == "__main__":
    sys.exit(main())
