"""``server_load.py --cluster N``: the load on N ``facedown serve`` processes sharing PostgreSQL
and Redis.

Each run gets a PostgreSQL database of its own, created from ``--postgres`` (default the local
``test`` database, as the first role that logs in) and dropped afterwards; every process gets
the same secret (tokens are checked by all) and its own data folder for its log.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import tempfile
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from benchmarks.serverproc import Server, free_port, start_server, stop_server

ADMIN_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"

Run = Callable[[argparse.Namespace, list[Server]], Coroutine[Any, Any, Any]]


async def _admin(admin_url: str, statement: str) -> None:
    engine = create_async_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            await connection.execute(text(statement))
    finally:
        await engine.dispose()


def create_database(admin_url: str) -> str:
    """A new, empty database next to ``admin_url``'s; its URL."""
    name = f"facedown_load_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(admin_url, f'CREATE DATABASE "{name}"'))
    url = make_url(admin_url).set(database=name)
    return url.render_as_string(hide_password=False)


def drop_database(admin_url: str, url: str) -> None:
    name = make_url(url).database
    asyncio.run(_admin(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def start_cluster(
    size: int,
    database_url: str,
    redis_url: str,
    root: Path,
    extra: list[str],
    profile: Path | None = None,
) -> list[Server]:
    """``size`` processes; the first under cProfile into ``profile`` if given."""
    secret = secrets.token_hex(32)
    servers = []
    for i in range(size):
        folder = root / f"p{i}"
        folder.mkdir()
        options = ["--database-url", database_url, "--redis-url", redis_url, *extra]
        where = profile if i == 0 else None
        servers.append(
            start_server(free_port(), folder, extra=options, secret=secret, profile=where)
        )
    return servers


def run_sizes(args: argparse.Namespace, run: Run) -> int:
    """The load on a cluster of each size in ``args.sizes``, one after the other."""
    for size in args.sizes:
        print(f"\n=== a cluster of {size} process{'es' if size > 1 else ''} ===", flush=True)
        url = create_database(args.postgres)
        try:
            with tempfile.TemporaryDirectory(prefix="facedown-cluster-") as tmp:
                extra = ["--max-connections", str(args.tables * 4 + 200)]
                servers = start_cluster(size, url, args.redis_url, Path(tmp), extra, args.profile)
                try:
                    asyncio.run(run(args, servers))
                except RuntimeError as e:
                    print(f"error: {e}", file=sys.stderr)
                    return 1
                finally:
                    for i, server in enumerate(servers):
                        profiled = i == 0 and args.profile is not None
                        stop_server(server, grace=60 if profiled else 10, profiled=profiled)
        finally:
            drop_database(args.postgres, url)
    return 0
