"""What only the SQL store does: migrations, real files and servers, durability, error messages."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from contextlib import closing
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import insert, text
from sqlalchemy.engine import Connection

from facedown.cli import main
from facedown.store import LogEntry, SeatRecord, StoreError, TableRecord, open_store, table_lease
from facedown.store.database import make_engine, make_sqlite_writer_engine
from facedown.store.migrate import MIGRATIONS, alembic_config, upgrade
from facedown.store.models import Base, LogRow
from facedown.store.sql import tables as sql_tables
from facedown.store.sql.tables import _core_update_table

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]


def record(table_id: str = "t1", code: str = "ABCD") -> TableRecord:
    return TableRecord(
        id=table_id,
        code=code,
        preset="kivo",
        rules={"preset": "kivo"},
        seed=7,
        host_id="h",
        seats=(SeatRecord(0, "human", "Ana", "h"),),
    )


def _schema_diff(connection: Connection) -> list[object]:
    return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


async def schema_diff(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_schema_diff)
    finally:
        await engine.dispose()


async def test_the_migrations_build_exactly_the_models(database_url: str) -> None:
    await upgrade(database_url)
    assert await schema_diff(database_url) == []


async def test_the_migrations_go_down_and_up_again(database_url: str) -> None:
    await upgrade(database_url)

    def downgrade(connection: Connection) -> None:
        config = alembic_config(database_url)
        config.attributes["connection"] = connection
        command.downgrade(config, "base")

    engine = make_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(downgrade)
        async with engine.connect() as connection:
            tables = await connection.run_sync(
                lambda sync: sync.dialect.get_table_names(sync)  # type: ignore[no-any-return]
            )
        assert set(tables) <= {"alembic_version"}
    finally:
        await engine.dispose()
    await upgrade(database_url)
    assert await schema_diff(database_url) == []


def test_the_migrations_ship_inside_the_package() -> None:
    assert (MIGRATIONS / "env.py").is_file()
    assert (MIGRATIONS / "script.py.mako").is_file()
    assert (MIGRATIONS / "versions" / "0001_initial.py").is_file()


async def test_tables_survive_closing_and_reopening(database_url: str) -> None:
    store = await open_store(database_url)
    await store.create_table(record())
    await store.append("t1", LogEntry(1, "start", {"by": "h"}))
    await store.close()

    reopened = await open_store(database_url)  # migrating again is a no-op
    try:
        assert await reopened.find_by_code("abcd") == record()
        assert await reopened.log("t1") == [LogEntry(1, "start", {"by": "h"})]
    finally:
        await reopened.close()


async def test_sqlite_table_updates_write_the_rows_sqlalchemy_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table's update and an append with an update, on SQLite, run as the driver's own
    statements: the rows they leave are the rows SQLAlchemy's statement leaves, seats too."""
    path = tmp_path / "facedown.db"
    store = await open_store(f"sqlite:///{path}")
    ran: list[str] = []
    original = sql_tables._sqlite_update_table

    def driver_update(connection: Connection, record: TableRecord, texts: tuple[str, str]) -> None:
        ran.append(record.id)
        original(connection, record, texts)

    monkeypatch.setattr(sql_tables, "_sqlite_update_table", driver_update)
    seats = (SeatRecord(0, "human", "Zoë \u4e2d", "h"), SeatRecord(2, "bot", "Bot", None, "expert"))
    changes = [
        {"status": "playing", "deadline": 12.5, "deadline_kind": "turn", "updated_at": 3.25},
        {"seats": seats, "settings": {"turn_seconds": 30, "names": ["a", "é"]}, "deadline": None},
        {"seats": seats[1:], "rules": {"preset": "kivo", "tap": False}, "seed": -(2**63)},
        {"seed": 2**128 - 1},  # a 128-bit seed, as decimal text
        {"status": "broken", "damage": "why \u2014 it broke", "host_id": "x", "preset": "cabo"},
        # The same seat numbers, only a name, a player or a bot's level changed.
        {"seats": (SeatRecord(0, "human", "Bea", "h"),), "deadline": 12, "updated_at": 7},
        {"seats": (SeatRecord(0, "human", "Bea", "p2"),)},
        {"seats": (SeatRecord(0, "bot", "Bot", None, "easy"),)},
        {"seats": (SeatRecord(0, "bot", "Bot", None, "hard"),)},
    ]
    try:
        for table_id, code in (("driver", "DRVR"), ("core", "CORE")):
            await store.create_table(record(table_id, code))
        for seq, change in enumerate(changes, start=1):
            driver = replace(record("driver", "DRVR"), **change)  # type: ignore[arg-type]
            core = replace(record("core", "CORE"), **change)  # type: ignore[arg-type]
            if seq % 2:
                await store.update_table(driver)
            else:
                await store.append_and_update(driver, LogEntry(seq, "action", {}))
            await store._write(partial(_core_update_table, record=core))
            assert await store.get_table("driver") == replace(core, id="driver", code="DRVR")
            with closing(sqlite3.connect(path)) as db:
                # repr: a REAL 12.0 and an INTEGER 12 are equal in Python, not in the file.
                rows = db.execute("SELECT * FROM tables ORDER BY id")
                tables = {row[0]: [repr(value) for value in row[2:]] for row in rows}
                held = {
                    table_id: db.execute(
                        "SELECT * FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
                    ).fetchall()
                    for table_id in tables
                }
            assert tables["driver"] == tables["core"]
            assert [row[1:] for row in held["driver"]] == [row[1:] for row in held["core"]]
            assert ran == ["driver"] * seq  # the driver's statements, not SQLAlchemy's
    finally:
        await store.close()


async def test_plain_urls_get_the_async_driver(tmp_path: Path) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'deep' / 'folder' / 'facedown.db'}")
    try:
        assert store.url.startswith("sqlite+aiosqlite:///")
        await store.create_table(record())
    finally:
        await store.close()
    assert (tmp_path / "deep" / "folder" / "facedown.db").is_file()


async def test_sqlite_connections_are_durable_and_check_foreign_keys(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'facedown.db'}")
    writer = make_sqlite_writer_engine(engine)
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_pragmas) == ("wal", 2, 1)
        with writer.connect() as connection:
            assert _pragmas(connection) == ("wal", 2, 1)
    finally:
        writer.dispose()
        await engine.dispose()


def _pragmas(connection: Connection) -> tuple[object, ...]:
    """journal_mode, synchronous (2 is FULL: the WAL is synced at every commit), foreign_keys."""
    pragmas = ("journal_mode", "synchronous", "foreign_keys")
    return tuple(connection.exec_driver_sql(f"PRAGMA {name}").scalar() for name in pragmas)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://postgres:secret@127.0.0.1:{closed_port}/x", "database unreachable"),
        ("postgresql+psycopg2://postgres@127.0.0.1/test", "unsupported driver"),
        ("mysql://localhost/facedown", "unsupported database"),
        ("not a url", "invalid database URL"),
    ],
)
async def test_bad_databases_raise_a_clear_store_error(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message) as raised:
        await open_store(url.format(closed_port=_closed_port()))
    assert "secret" not in str(raised.value)


async def test_a_missing_postgres_database_is_reported(postgres_url: str) -> None:
    with pytest.raises(StoreError, match=r"database unreachable.*does not exist"):
        await open_store(postgres_url.rsplit("/", 1)[0] + "/facedown_no_such_database")


async def test_an_unopenable_sqlite_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "a-folder.db").mkdir()
    with pytest.raises(StoreError, match="database unreachable"):
        await open_store(f"sqlite:///{tmp_path / 'a-folder.db'}")


async def test_a_store_outlives_its_postgres_connections(postgres_url: str) -> None:
    store = await open_store(postgres_url)
    try:
        await store.create_table(record())
        name = postgres_url.rsplit("/", 1)[1]
        admin = make_engine(postgres_url.rsplit("/", 1)[0] + "/test")
        async with admin.connect() as connection:
            await connection.execute(
                text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"),
                {"n": name},
            )
        await admin.dispose()
        # As after a server restart: the pool finds its connections dead and makes new ones.
        assert await store.get_table("t1") == record()
        await store.append("t1", LogEntry(1, "start", {}))
    finally:
        await store.close()


async def test_log_payloads_are_stored_once_encoded_as_before_on_postgres(
    postgres_url: str,
) -> None:
    """Every append path stores the entry's JSON object as the text a JSON column writes
    (json.dumps), never that text again as a JSON string; rows written by the JSON column
    (as every earlier version did) read back the same."""
    payload = {"do": "swap", "slots": [0, 3], "by": 1, "name": "Zoë \u4e2d", "x": None}
    store = await open_store(postgres_url)
    try:
        await store.create_table(record())
        await store.append("t1", LogEntry(1, "action", payload))  # no lease
        lease = await store.take_lease(table_lease("t1"), "a", 30.0)
        assert lease is not None
        await store.append("t1", LogEntry(2, "action", payload), lease=lease)  # fenced
        ended = replace(record(), status="finished")
        await store.append_and_update(ended, LogEntry(3, "action", payload), lease=lease)
        engine = make_engine(postgres_url)
        try:
            async with engine.begin() as connection:
                # A row as the JSON column writes it, as before this change.
                await connection.execute(
                    insert(LogRow).values(
                        table_id="t1", seq=4, kind="action", payload=payload, created_at=1.0
                    )
                )
                rows = await connection.execute(
                    text(
                        "SELECT seq, json_typeof(payload), payload::text FROM table_log"
                        " WHERE table_id = 't1' ORDER BY seq"
                    )
                )
                stored = [tuple(row) for row in rows]
        finally:
            await engine.dispose()
        assert stored == [(seq, "object", json.dumps(payload)) for seq in (1, 2, 3, 4)]
        assert [e.payload for e in await store.log("t1")] == [payload] * 4
    finally:
        await store.close()


def test_db_upgrade_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["db", "upgrade", "--url", url]) == 0
    assert main(["db", "upgrade", "--url", url]) == 0  # already at the newest revision
    assert main(["db", "upgrade", "--url", "mysql://x/y"]) == 2  # a URL it cannot use: bad input
    assert "unsupported database" in capsys.readouterr().err


# A writer that appends forever and prints each seq once append has returned.
WRITER = """
import asyncio, sys
from facedown.store import LogEntry, TableRecord, open_store

async def write(url, seq):
    store = await open_store(url)
    if seq == 1:
        table = TableRecord(id="t", code="T", preset="cabo", rules={}, seed=1, host_id="h")
        await store.create_table(table)
    while True:
        await store.append("t", LogEntry(seq, "action", {"n": seq, "pad": "x" * 200}))
        print(seq, flush=True)
        seq += 1

asyncio.run(write(sys.argv[1], int(sys.argv[2])))
"""


async def test_every_acknowledged_append_survives_kill_9(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'durable.db'}"
    next_seq = 1
    for kill_after in (1, 20, 80):
        printed = _write_then_kill(url, next_seq, kill_after)
        store = await open_store(url)
        try:
            logged = [entry.seq for entry in await store.log("t")]
        finally:
            await store.close()
        assert set(printed) <= set(logged), "an acknowledged append was lost"
        assert logged == list(range(1, len(logged) + 1))
        next_seq = len(logged) + 1


def _write_then_kill(url: str, first_seq: int, kill_after: int) -> list[int]:
    """Run the writer, SIGKILL it right after its ``kill_after``-th printed seq; all it printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, url, str(first_seq)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    watchdog = threading.Timer(60, writer.kill)
    watchdog.start()
    try:
        assert writer.stdout is not None
        printed: list[int] = []
        while len(printed) < kill_after:
            line = writer.stdout.readline()
            if not line:
                pytest.fail(f"the writer stopped: {writer.communicate()[1]}")
            printed.append(int(line))
        writer.send_signal(signal.SIGKILL)
        rest, _ = writer.communicate()
        printed += [int(line) for line in rest.split()]  # printed before the kill landed
        assert writer.returncode == -signal.SIGKILL
        return printed
    finally:
        watchdog.cancel()
        if writer.poll() is None:
            writer.kill()
            writer.wait()


def test_alembic_alone_migrates_by_url(tmp_path: Path) -> None:
    # The path of the `alembic` command line: no connection handed over, env.py makes its own.
    url = f"sqlite:///{tmp_path / 'alembic.db'}"
    command.upgrade(alembic_config(url), "head")
    with closing(sqlite3.connect(tmp_path / "alembic.db")) as connection:
        [(revision,)] = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    assert revision == head
