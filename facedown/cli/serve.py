"""``facedown serve``: the game server and the web client, in one process or as one process of
a cluster; its options are checked (and refused in one line) before anything is served."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .common import (
    Choices,
    CommandError,
    command_parser,
    count,
    host_name,
    interval,
    port_number,
    seconds,
    sqlite_folder,
    web_url,
)

if TYPE_CHECKING:
    from ..server.edge.settings import ServerSettings
    from .common import Subparsers

NAME = "serve"
SUMMARY = "run the game server and the web client"
EXAMPLE = "facedown serve --port 8000"


def _log_formats() -> Sequence[str]:
    from ..server.base.logs import LOG_FORMATS

    return LOG_FORMATS


def _securities() -> Sequence[str]:
    from ..server.accounts.mail import SECURITIES

    return SECURITIES


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
        sqlite_folder(database_url)


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
    return None


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.add_argument(
        "--host",
        type=host_name,
        default="127.0.0.1",
        help="the address to listen on (0.0.0.0: all)",
    )
    p.add_argument(
        "--port", type=port_number, default=8000, help="the port to listen on (1 to 65535)"
    )
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
        type=interval(1, 300, " seconds"),
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
        type=seconds,
        default=5.0,
        metavar="SECONDS",
        help="in a cluster: seconds between a process's looks at its share of the tables "
        "(default 5; it looks once a second at most)",
    )
    p.add_argument(
        "--rebalance-margin",
        type=count(1),
        default=2,
        metavar="TABLES",
        help="in a cluster: tables a process may own beyond its fair share before it hands "
        "any over (default 2, at least 1: at 0 the rounding of shares could send a table "
        "back and forth)",
    )
    p.add_argument(
        "--bot-processes",
        type=count(0, 64),
        default=1,
        help="worker processes in which expert bots think, off the process that serves the "
        "sockets (default 1; 0: in a thread)",
    )
    p.add_argument(
        "--public-url",
        type=web_url,
        default="",
        help="base URL of the links handed out, http:// or https:// (default: relative links)",
    )
    p.add_argument(
        "--test-hooks",
        action="store_true",
        default=os.environ.get("FACEDOWN_TEST_HOOKS") == "1",
        help="let POST /api/tables choose the seed and stack the deal (for tests only; "
        "also FACEDOWN_TEST_HOOKS=1)",
    )
    p.add_argument(
        "--request-timeout",
        type=interval(0, 3600, " seconds"),
        default=10.0,
        help="seconds a request may take to arrive whole, headers and body (default 10)",
    )
    p.add_argument(
        "--max-connections",
        type=count(1),
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
    ).choices = Choices(_log_formats)
    p.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="warning",
        help="the least severe log records written (default warning)",
    )
    p.add_argument(
        "--bot-delay",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="how long a bot waits before it plays (default 0.7; small for load tests)",
    )
    p.add_argument(
        "--smtp-host",
        default=None,
        help="an SMTP server for turn e-mails to players who gave an address (default: none)",
    )
    p.add_argument("--smtp-port", type=port_number, default=25, help="the SMTP server's port")
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
    ).choices = Choices(_securities)
    p.add_argument(
        "--smtp-user",
        default=None,
        help="log in to the SMTP server as this account; its password is read from "
        "FACEDOWN_SMTP_PASSWORD (default: no login)",
    )
    return p


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ..server.app import create_app
    from ..server.base.addresses import LOOPBACK, ClientLimits, proxy_networks
    from ..server.base.logs import log_config
    from ..server.cluster.ownership import Rebalance
    from ..server.edge.serving import log_slow_collections, max_connections, uvicorn_config
    from ..server.edge.settings import ServerSettings
    from ..server.play.context import TableConfig
    from ..store import StoreError
    from ..store.database import check_database

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
    # The limits and timeouts of the open network: server/edge/serving.py and docs/server.md.
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
