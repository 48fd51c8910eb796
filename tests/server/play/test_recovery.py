"""Start-up recovery: a table that cannot be rebuilt is logged and left out; the rest start."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from pathlib import Path

import pytest

from facedown.bots import make_bot
from facedown.engine import Game
from facedown.records.matches import legacy_match_seed, match_seed
from facedown.server.base.clock import FakeClock
from facedown.server.base.errors import TableError
from facedown.server.edge.settings import ServerSettings
from facedown.server.modes.modes import TableSettings
from facedown.server.play.context import TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import TableConfig
from facedown.server.transport.hub import LocalHub
from facedown.store import LogEntry, MemoryStore, SeatRecord

from ..harness import client, probe, run_server

SLOW: TableSettings = {"peek_seconds": 600, "turn_seconds": 3600}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _three_tables(store: MemoryStore) -> tuple[str, str, str]:
    """A good table, one whose bot seat names a level no bot has, one with a corrupt log entry;
    returns their codes."""
    # Time stands still here (nothing plays); it starts now, as the server that loads them runs.
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock(time.time())))
    good = await lobby.create("host", "Ann", "kivo", {}, 2, SLOW, ["easy"])
    await good.start("host")
    odd_bot = await lobby.create("host", "Ann", "kivo", {}, 2, SLOW, ["easy"])
    seats = (odd_bot.record.seats[0], SeatRecord(1, "bot", "Bot (?)", None, "grandmaster"))
    await store.update_table(replace(odd_bot.record, seats=seats))
    corrupt = await lobby.create("host", "Ann", "kivo", {}, 2, SLOW, ["easy"])
    await corrupt.start("host")
    bad = {"action": {"do": "fly", "by": 0}, "deadline": None}
    await store.append(corrupt.record.id, LogEntry(corrupt.seq + 1, "action", bad, 0.0))
    await lobby.close()
    return good.record.code, odd_bot.record.code, corrupt.record.code


@pytest.mark.anyio
async def test_recovery_logs_and_skips_a_table_it_cannot_rebuild(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = MemoryStore()
    good, odd_bot, corrupt = await _three_tables(store)
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock()))
    with caplog.at_level(logging.ERROR, logger="facedown.server.play.lobby"):
        assert await lobby.recover() == 1
    assert [t.record.code for t in lobby.tables.values()] == [good]
    for code in (odd_bot, corrupt):
        record = await store.find_by_code(code)
        assert record is not None
        logged = [r for r in caplog.records if record.id in r.getMessage()]
        assert len(logged) == 1
        assert logged[0].levelno == logging.ERROR
        assert logged[0].exc_info is not None  # the error itself, with its traceback
        with pytest.raises(TableError) as refused:
            await lobby.find(code)
        assert refused.value.code == "table_unavailable"
    assert "grandmaster" in caplog.text
    assert "fly" in caplog.text
    assert (await lobby.find(good)).game is not None
    await lobby.close()


@pytest.mark.anyio
async def test_a_table_that_cannot_be_rebuilt_is_marked_broken_and_not_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = MemoryStore()
    good, odd_bot, corrupt = await _three_tables(store)
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock()))
    await lobby.recover()
    await lobby.close()
    for code, why in ((odd_bot, "grandmaster"), (corrupt, "fly")):
        record = await store.find_by_code(code)
        assert record is not None
        assert record.status == "broken"
        assert record.damage is not None
        assert why in record.damage
    assert sorted(r.code for r in await store.broken_tables()) == sorted([odd_bot, corrupt])
    assert [r.code for r in await store.active_tables()] == [good]

    # The next start does not try them again: one warning line names each, no traceback.
    caplog.clear()
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock()))
    with caplog.at_level(logging.INFO, logger="facedown.server.play.lobby"):
        assert await lobby.recover() == 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    for code in (odd_bot, corrupt):
        [line] = [r for r in caplog.records if code in r.getMessage()]
        assert line.levelno == logging.WARNING
        assert "broken" in line.getMessage()
        assert line.exc_info is None
        with pytest.raises(TableError) as refused:
            await lobby.find(code)
        assert refused.value.code == "table_unavailable"
    await lobby.close()


def test_the_server_starts_and_serves_the_other_tables(tmp_path: Path) -> None:
    store = MemoryStore()
    good, odd_bot, corrupt = asyncio.run(_three_tables(store))
    settings = ServerSettings(
        data_dir=tmp_path, secret="recovery", table=TableConfig(bot_delay=600)
    )
    with run_server(settings, store) as server, server.http() as http:
        assert http.get("/api/health").json()["tables"] == 1
        assert http.get(f"/api/tables/{good}").json()["status"] == "playing"
        for code in (odd_bot, corrupt):
            r = http.get(f"/api/tables/{code}")
            assert r.status_code == 503, r.text
            assert r.json()["detail"]["code"] == "table_unavailable"
            r = http.post(f"/api/tables/{code}/join", json={"name": "Eve"})
            assert r.status_code == 503, r.text

        async def over_the_socket() -> None:
            seq, view, _ = await probe(server, good)
            assert seq == 1
            assert view["phase"] == "opening"
            async with client(server) as c:
                await c.send({"type": "hello", "table": corrupt})
                error = await c.recv()
                assert error["type"] == "error"
                assert error["code"] == "table_unavailable"
                assert corrupt in error["message"]
                await c.pong()  # the connection lives on

        asyncio.run(over_the_socket())


@pytest.mark.anyio
async def test_a_match_started_by_an_older_server_is_rebuilt_with_its_old_seed() -> None:
    """Start entries from before one-way match seeds (no ``seeding`` key) deal as they did."""
    store = MemoryStore()
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock(time.time())))
    table = await lobby.create("host", "Ann", "cabo", {}, 2, SLOW, ["easy"])
    old = {"match": 1, "players": 2, "deadline": None}  # as an older server wrote it
    await store.append_and_update(
        replace(table.record, status="playing"), LogEntry(1, "start", old, 0.0)
    )
    await lobby.close()
    again = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock(time.time())))
    await again.recover()
    (rebuilt,) = again.tables.values()
    assert rebuilt.game is not None
    expected = Game(rebuilt.rules, 2, legacy_match_seed(table.record.seed, 1))
    assert rebuilt.game.hands == expected.hands
    assert rebuilt.game.hands != Game(rebuilt.rules, 2, match_seed(table.record.seed, 1)).hands
    await again.close()
