"""A SQLite write-ahead log damaged while the server is stopped is refused loudly at start-up.

The server is killed with SIGKILL, so its WAL (``facedown.db-wal``) holds commits not yet
copied into the database file.  Then the WAL is cut short, at a frame boundary (the case SQLite
itself cannot tell from a crash: it opens the database and ``quick_check`` says ok) or
overwritten in the middle.  ``facedown serve`` must refuse it with one line naming the lost
commits, not serve half of each log; an untouched copy starts and serves every table; deleting
the count file (the documented way to accept the loss) serves what is left.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from benchmarks.serverproc import free_port, start_server, stop_server, wait_healthy
from facedown.store import backup_sqlite
from facedown.store.commits import marks_path, recorded

SECRET = "damaged-wal"  # noqa: S105 - signs the test server's tokens
ADDRESS = "127.0.22.1"  # this test's own loopback address (per-address limits)
WAL_HEADER, FRAME_HEADER = 32, 24  # bytes (sqlite.org/fileformat.html, the WAL format)
TABLES = 12
BACKED_UP = 4  # tables made before the backup


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(port: int) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=ADDRESS)
    return httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=10, trust_env=False
    )


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A data folder whose server made tables and was killed: the WAL holds the commits."""
    import anyio

    data = tmp_path_factory.mktemp("killed")

    async def fill() -> list[str]:
        port = free_port()
        async with _client(port) as http:
            server = start_server(port, data, secret=SECRET)
            try:
                await wait_healthy(server, http)
                codes = []
                for n in range(TABLES):
                    if n == BACKED_UP:  # a backup of the live database, halfway
                        backup_sqlite(f"sqlite:///{data / 'facedown.db'}", data / "backup.db")
                    r = await http.post("/api/tables", json={"preset": "kivo", "seats": 2})
                    codes.append(r.json()["code"])
                server.proc.send_signal(signal.SIGKILL)
                assert server.proc.wait(10) == -signal.SIGKILL
            finally:
                stop_server(server, grace=5)
        return codes

    codes = anyio.run(fill)
    wal = data / "facedown.db-wal"
    assert wal.stat().st_size > WAL_HEADER  # the commits are in the WAL only
    assert recorded(data / "facedown.db") is not None
    return data, codes


def _copy(killed: tuple[Path, list[str]], to: Path) -> Path:
    shutil.copytree(killed[0], to)
    (to / "server.log").unlink(missing_ok=True)
    return to


def _page_size(data: Path) -> int:
    header = (data / "facedown.db-wal").read_bytes()[:WAL_HEADER]
    return int.from_bytes(header[8:12], "big")


def _serve_refuses(data: Path) -> str:
    """``facedown serve`` on ``data`` exits 1 with one line: the line."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "facedown",
            "serve",
            "--data",
            str(data),
            "--port",
            str(free_port()),
        ],
        env={"FACEDOWN_SECRET": SECRET, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1, done.stderr
    return done.stderr


def _sqlite_sees_nothing_wrong(data: Path) -> int:
    """What SQLite alone says of the damaged file (in a copy, so the WAL is left as it is):
    ok, and fewer tables than were made."""
    probe = data.parent / f"{data.name}-probe"
    shutil.copytree(data, probe)
    with closing(sqlite3.connect(probe / "facedown.db")) as db:
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        (count,) = db.execute("SELECT count(*) FROM tables").fetchone()
    return int(count)


async def _serves(data: Path, codes: list[str]) -> list[int]:
    """Start on ``data``: the HTTP status of each table's lookup."""
    port = free_port()
    async with _client(port) as http:
        server = start_server(port, data, secret=SECRET)
        try:
            await wait_healthy(server, http)
            return [(await http.get(f"/api/tables/{code}")).status_code for code in codes]
        finally:
            stop_server(server, grace=10)


@pytest.mark.anyio
async def test_an_untouched_wal_after_a_kill_serves_every_table(
    killed: tuple[Path, list[str]], tmp_path: Path
) -> None:
    data = _copy(killed, tmp_path / "data")
    assert await _serves(data, killed[1]) == [200] * TABLES


@pytest.mark.anyio
async def test_a_wal_cut_at_a_frame_boundary_is_refused(
    killed: tuple[Path, list[str]], tmp_path: Path
) -> None:
    data = _copy(killed, tmp_path / "data")
    wal = data / "facedown.db-wal"
    frame = FRAME_HEADER + _page_size(data)
    frames = (wal.stat().st_size - WAL_HEADER) // frame
    assert frames >= 4
    with wal.open("r+b") as f:
        f.truncate(WAL_HEADER + (frames // 2) * frame)  # whole frames: a crash looks so
    assert _sqlite_sees_nothing_wrong(data) < TABLES
    said = _serve_refuses(data)
    assert "lost acknowledged writes" in said, said
    assert "facedown.db-wal" in said
    assert "facedown backup" in said
    # Refused again on the next try (SQLite dropped the damaged WAL by now: the count stays).
    assert "lost acknowledged writes" in _serve_refuses(data)
    # The operator accepts the loss: delete the count file, and what is left is served.
    marks_path(data / "facedown.db").unlink()
    served = await _serves(data, killed[1])
    assert 200 in served
    assert 404 in served  # the tables the cut WAL held are gone


@pytest.mark.anyio
async def test_an_overwritten_wal_is_refused(
    killed: tuple[Path, list[str]], tmp_path: Path
) -> None:
    data = _copy(killed, tmp_path / "data")
    wal = data / "facedown.db-wal"
    size = wal.stat().st_size
    with wal.open("r+b") as f:
        f.seek(size // 2)
        f.write(b"\xa5" * (size // 4))  # garbage over a quarter, from the middle on
    assert _sqlite_sees_nothing_wrong(data) < TABLES
    said = _serve_refuses(data)
    assert "lost acknowledged writes" in said, said


def test_a_wal_with_its_header_overwritten_is_refused(
    killed: tuple[Path, list[str]], tmp_path: Path
) -> None:
    data = _copy(killed, tmp_path / "data")
    with (data / "facedown.db-wal").open("r+b") as f:
        f.write(b"\0" * WAL_HEADER)  # SQLite ignores the whole log
    assert "lost acknowledged writes" in _serve_refuses(data)


@pytest.mark.anyio
async def test_restoring_a_backup_as_documented_serves_it(
    killed: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """docs/server.md: stop, put the copy in place, remove the -wal, -shm and count files."""
    data = _copy(killed, tmp_path / "data")
    with (data / "facedown.db-wal").open("r+b") as f:
        f.truncate(WAL_HEADER)
    _serve_refuses(data)
    shutil.copy(data / "backup.db", data / "facedown.db")
    for name in ("facedown.db-wal", "facedown.db-shm"):
        (data / name).unlink(missing_ok=True)
    # The count file kept, the copy holds fewer commits than were made: refused, and said so.
    assert "lost acknowledged writes" in _serve_refuses(data)
    marks_path(data / "facedown.db").unlink()
    served = await _serves(data, killed[1])
    assert served == [200] * BACKED_UP + [404] * (TABLES - BACKED_UP)
