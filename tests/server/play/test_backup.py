"""``facedown backup`` copies a live database; a server started on the copy resumes every game
exactly where it was when the copy was taken."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from facedown.cli import main
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..harness import create_table, play_until, probe, run_server, seated


def _settings(data: Path) -> ServerSettings:
    # Slow bots and long timers: nothing moves but what the test plays.
    return ServerSettings(data_dir=data, secret="backup-test", table=TableConfig(bot_delay=600))


Seen = tuple[int, dict[str, Any], list[dict[str, Any]]]


async def _seen(server: Any, code: str, tokens: list[str]) -> list[Seen]:
    """What each seat sees now: seq, view, legal actions."""
    async with seated(server, code, tokens) as clients:
        return [(c.seq, c.view, c.legal) for c in clients]


async def _play(server: Any, code: str, tokens: list[str], actions: int) -> None:
    async with seated(server, code, tokens) as clients:
        if clients[0].table["status"] == "lobby":
            await clients[0].send({"type": "start"})
            for c in clients:
                await c.until("event")
                await c.settle()
        target = clients[0].seq + actions
        await play_until(clients, lambda _view: clients[0].seq >= target)


def test_a_backup_of_a_live_database_resumes_every_game_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live, restored = tmp_path / "live", tmp_path / "restored"
    copy = tmp_path / "copies" / "facedown-backup.db"
    copy.parent.mkdir()  # backup makes no folder (tests/test_cli.py: a missing one is refused)
    with run_server(_settings(live)) as server:
        tables = []
        for preset, seats, actions in (("kivo", 2, 5), ("cabo", 3, 9), ("boyo", 2, 0)):
            code, tokens = create_table(server, preset, seats, turn_seconds=3600)
            if actions:
                asyncio.run(_play(server, code, tokens, actions))
            tables.append((code, tokens))
        before = {code: asyncio.run(_seen(server, code, tokens)) for code, tokens in tables}
        public = {code: asyncio.run(probe(server, code)) for code, _ in tables}

        assert main(["backup", str(copy), "--data", str(live)]) == 0
        assert "secret.key" in capsys.readouterr().out
        assert main(["backup", str(copy), "--data", str(live)]) == 1  # never overwritten
        assert "exists" in capsys.readouterr().err

        code, tokens = tables[0]
        asyncio.run(_play(server, code, tokens, 2))  # the live tables go on: the copy does not
        assert asyncio.run(probe(server, code))[0] == before[code][0][0] + 2

    restored.mkdir()
    shutil.copy(copy, restored / "facedown.db")
    with run_server(_settings(restored)) as server:
        for code, tokens in tables:
            assert asyncio.run(probe(server, code)) == public[code]
            assert asyncio.run(_seen(server, code, tokens)) == before[code]
        for code, tokens in tables[:2]:  # and the games play on from there
            asyncio.run(_play(server, code, tokens, 2))
        with server.http() as http:
            assert http.get(f"/api/tables/{tables[2][0]}").json()["status"] == "lobby"


def test_backup_refuses_postgres_and_a_missing_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "postgresql://nobody@127.0.0.1:1/none"
    assert main(["backup", str(tmp_path / "x.db"), "--database-url", url]) == 1
    assert "pg_dump" in capsys.readouterr().err
    # A data folder without a database is a mistake in what was asked (exit 2), and the
    # folder is not made on the way.
    assert main(["backup", str(tmp_path / "x.db"), "--data", str(tmp_path / "empty")]) == 2
    assert "no database" in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()
    assert not (tmp_path / "empty").exists()
