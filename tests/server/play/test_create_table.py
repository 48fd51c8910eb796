"""Creating a table: what the engine or the bots cannot play is refused with 422, nothing saved."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from facedown.bots import LEVELS, make_bot
from facedown.engine import MAX_PLAYERS
from facedown.server.app import CreateTable
from facedown.server.base.clock import FakeClock
from facedown.server.base.errors import TableError
from facedown.server.edge.settings import ServerSettings
from facedown.server.modes.modes import TableSettings
from facedown.server.play.context import TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import TableConfig
from facedown.server.transport import protocol as P
from facedown.server.transport.hub import LocalHub
from facedown.store import MemoryStore

from ..harness import run_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settings(tmp_path: Path) -> ServerSettings:
    return ServerSettings(data_dir=tmp_path, secret="create-table", table=TableConfig())


def test_an_unknown_bot_level_is_refused_with_422_and_nothing_is_saved(tmp_path: Path) -> None:
    store = MemoryStore()
    with run_server(_settings(tmp_path), store) as server, server.http() as http:
        body = {"preset": "kivo", "seats": 3, "bots": ["hard", "grandmaster"]}
        r = http.post("/api/tables", json=body)
        assert r.status_code == 422, r.text
        assert "grandmaster" in r.text  # the answer names the level it refuses
        assert http.get("/api/health").json()["tables"] == 0
    # Nothing reached the store, so no later start-up meets a table it cannot rebuild.
    assert asyncio.run(store.active_tables()) == []


@pytest.mark.anyio
async def test_the_lobby_refuses_an_unknown_bot_level_before_saving() -> None:
    store = MemoryStore()
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock()))
    with pytest.raises(TableError) as refused:
        await lobby.create("host", "Ann", "kivo", {}, 3, {}, ["grandmaster"])
    assert refused.value.code == "bad_bot_level"
    assert "grandmaster" in refused.value.message
    assert await store.active_tables() == []


@pytest.mark.anyio
async def test_adding_a_bot_of_an_unknown_level_changes_nothing() -> None:
    store = MemoryStore()
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock()))
    table = await lobby.create("host", "Ann", "kivo", {}, 3, {}, [])
    before = await store.get_table(table.record.id)
    with pytest.raises(TableError) as refused:
        await table.add_bot("host", "grandmaster", None)
    assert refused.value.code == "bad_bot_level"
    assert await store.get_table(table.record.id) == before
    assert table.bots == {}
    await lobby.close()


def test_the_engine_decides_what_seats_a_deck_can_deal(tmp_path: Path) -> None:
    with run_server(_settings(tmp_path), MemoryStore()) as server, server.http() as http:
        # 8 hands of 8 cards and a discard: more than a deck of 52.  The engine says so.
        body = {"preset": "cabo", "seats": 8, "options": {"hand_size": 8}}
        r = http.post("/api/tables", json=body)
        assert r.status_code == 422, r.text
        detail = r.json()["detail"]
        assert detail["code"] == "bad_seats"
        assert detail["message"] == "8 players need 65 cards; the deck has 52"
        assert http.post("/api/tables", json={"seats": MAX_PLAYERS + 1}).status_code == 422
        r = http.post("/api/tables", json={"seats": MAX_PLAYERS, "preset": "boyo"})
        assert r.status_code == 200, r.text


def test_bot_levels_and_seat_limits_come_from_the_registry_and_the_engine() -> None:
    add_bot = P.AddBot.model_json_schema()["properties"]
    assert add_bot["level"]["enum"] == list(LEVELS)
    assert add_bot["seat"]["anyOf"][0]["maximum"] == MAX_PLAYERS - 1
    create = CreateTable.model_json_schema()["properties"]
    assert create["seats"]["maximum"] == MAX_PLAYERS
    assert create["bots"]["items"]["anyOf"][0]["enum"] == list(LEVELS)  # or null: open
    for level in LEVELS:
        P.parse_client_message(f'{{"type": "add_bot", "level": "{level}"}}')
    with pytest.raises(P.ProtocolError, match="level"):
        P.parse_client_message('{"type": "add_bot", "level": "grandmaster"}')


def test_bots_take_the_seats_the_host_chose(tmp_path: Path) -> None:
    # Seat 2 a friend, seat 3 a bot (the settings page's order): null keeps a seat open.
    with run_server(_settings(tmp_path), MemoryStore()) as server, server.http() as http:
        body = {"preset": "kivo", "seats": 4, "bots": [None, "easy"]}
        r = http.post("/api/tables", json=body)
        assert r.status_code == 200, r.text
        seats = r.json()["table"]["seats"]
        assert [s["kind"] for s in seats] == ["human", "open", "bot", "open"]
        assert seats[2]["level"] == "easy"


@pytest.mark.anyio
async def test_tables_made_alike_share_their_rules_and_a_refusal_is_not_kept() -> None:
    """A creation's rules are made and checked once for each preset, options, seats and mode:
    the tables made alike share one ruleset, live and as stored, and a refusal is made again
    every time (nothing refused is kept to be handed out later)."""
    store = MemoryStore()
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock()))
    timers: TableSettings = {"peek_seconds": 20, "turn_seconds": 60}
    first = await lobby.create("a", "Ann", "kivo", {"rounds": 3}, 3, timers, [])
    second = await lobby.create("b", "Bob", "kivo", {"rounds": 3}, 3, timers, [])
    other = await lobby.create("c", "Cid", "kivo", {"rounds": 5}, 3, timers, [])
    assert first.rules is second.rules
    assert other.rules is not first.rules
    assert other.rules.rounds == 5
    assert first.record.rules == first.rules.to_json()
    assert first.record.rules is not second.record.rules  # each record has a JSON of its own
    for stored in (first, second, other):  # read back as it was made, its log empty
        record = await store.get_table(stored.record.id)
        assert record is not None
        assert record.rules == stored.rules.to_json()
        assert await store.log(stored.record.id) == []
    for _ in range(2):
        with pytest.raises(TableError) as refused:
            await lobby.create("d", "Dee", "kivo", {"rounds": 4}, 3, timers, [])
        assert refused.value.code == "bad_rounds"
