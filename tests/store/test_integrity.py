"""A damaged SQLite file is refused at start-up, loudly, rather than served half."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from facedown.cli import main
from facedown.store import DatabaseDamaged, LogEntry, SeatRecord, TableRecord, open_store

pytestmark = pytest.mark.anyio


async def _database_with_logs(path: Path) -> None:
    """A database some pages long: tables with long logs."""
    store = await open_store(f"sqlite:///{path}")
    try:
        for n in range(20):
            record = TableRecord(
                id=f"t{n}",
                code=f"C{n:04d}",
                preset="kivo",
                rules={"preset": "kivo"},
                seed=n,
                host_id="h",
                seats=(SeatRecord(0, "human", "Ann", "h"),),
                status="playing",
            )
            await store.create_table(record)
            for seq in range(1, 60):
                payload = {"action": {"do": "draw", "by": 0}, "pad": "x" * 50}
                await store.append(record.id, LogEntry(seq, "action", payload))
    finally:
        await store.close()  # the last connection checkpoints the WAL into the file


def _damage(path: Path) -> None:
    """Overwrite pages of the action log with junk (a bad disk, a bad copy): pages that hold
    rows, since junk on an empty table's page or a free page is nothing SQLite can notice."""
    with closing(sqlite3.connect(path)) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        log_pages = [
            row[0]
            for row in connection.execute(
                "SELECT pageno FROM dbstat WHERE name = 'table_log' AND pagetype = 'leaf'"
                " ORDER BY pageno"
            )
        ]
    assert len(log_pages) > 20
    middle = len(log_pages) // 2
    with path.open("r+b") as f:
        for page in log_pages[middle : middle + 4]:  # dbstat numbers pages from 1
            f.seek((page - 1) * page_size + 8)
            f.write(bytes(range(256)) * 4)


async def test_a_sound_database_opens(tmp_path: Path) -> None:
    path = tmp_path / "facedown.db"
    await _database_with_logs(path)
    store = await open_store(f"sqlite:///{path}")
    await store.close()


async def test_a_damaged_database_is_refused_naming_the_file_and_the_problems(
    tmp_path: Path,
) -> None:
    path = tmp_path / "facedown.db"
    await _database_with_logs(path)
    _damage(path)
    with pytest.raises(DatabaseDamaged) as refused:
        await open_store(f"sqlite:///{path}")
    message = str(refused.value)
    assert str(path) in message
    assert "quick_check" in message
    assert "page" in message.lower() or "tree" in message.lower()  # SQLite's own words


async def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "facedown.db"
    path.write_bytes(b"not a database, not at all: " * 100)
    with pytest.raises(DatabaseDamaged, match=r"facedown\.db"):
        await open_store(f"sqlite:///{path}")


def test_serve_refuses_a_damaged_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], anyio_backend: str
) -> None:
    import asyncio

    path = tmp_path / "facedown.db"
    asyncio.run(_database_with_logs(path))
    _damage(path)
    assert main(["serve", "--data", str(tmp_path), "--port", "1"]) == 1
    err = capsys.readouterr().err
    assert "damaged" in err
    assert str(path) in err
    assert "facedown backup" in err
