"""Pass-and-play tables: made with every player's name, started at once, one round, no memory
aid, every seat's token to the one device, and each seat still sent only its own view; no
timers and no stand-in bots (the seats wait for the device)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from facedown.bots import make_bot
from facedown.engine import MAX_PLAYERS, MIN_PLAYERS
from facedown.server.api.passplay import one_round_options
from facedown.server.base.clock import FakeClock
from facedown.server.edge.settings import ServerSettings
from facedown.server.modes.modes import MODE, PASS_AND_PLAY
from facedown.server.play.context import TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import TableConfig
from facedown.server.transport.hub import LocalHub
from facedown.store import MemoryStore

from ..harness import RunningServer, applied, play_to_end, run_server, seated

ROUTE = "/api/tables/pass-and-play"
NAMES = ["Maya", "Bo", "Cyd", "Dana", "Eli", "Fen", "Gus", "Hal"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    settings = ServerSettings(data_dir=tmp_path, secret="pass-and-play", table=TableConfig())
    with run_server(settings, MemoryStore()) as running:
        yield running


def _create(server: RunningServer, body: dict[str, Any]) -> Any:
    with server.http() as http:
        return http.post(ROUTE, json=body)


def _tables(server: RunningServer) -> int:
    with server.http() as http:
        count: int = http.get("/api/health").json()["tables"]
        return count


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_a_table_is_made_with_the_names_and_starts_its_one_round(
    server: RunningServer, preset: str
) -> None:
    r = _create(server, {"preset": preset, "names": ["Maya", "Bo", "Cyd"]})
    assert r.status_code == 200, r.text
    made = r.json()
    table = made["table"]
    assert table["status"] == "playing"  # no lobby: everyone is at the device
    assert table["settings"][MODE] == PASS_AND_PLAY
    assert [(s["seat"], s["kind"], s["name"]) for s in table["seats"]] == [
        (0, "human", "Maya"),
        (1, "human", "Bo"),
        (2, "human", "Cyd"),
    ]
    # One round of the preset, and no memory aid, whatever the preset's own match length.
    assert table["rules"]["rounds"] == 1
    assert table["rules"]["score_limit"] is None
    assert table["rules"]["sudden_death"] is False
    assert table["rules"]["recollection"] is False
    assert table["rules"]["name"] == preset
    # Every seat's token, each a different one, in seat order.
    assert [(s["seat"], s["name"]) for s in made["seats"]] == [(0, "Maya"), (1, "Bo"), (2, "Cyd")]
    assert len({s["token"] for s in made["seats"]}) == 3
    assert made["link"].endswith(f"/t/{made['code']}")


@pytest.mark.parametrize("count", [MIN_PLAYERS, MAX_PLAYERS])
def test_two_to_eight_players(server: RunningServer, count: int) -> None:
    r = _create(server, {"preset": "boyo", "names": NAMES[:count]})
    assert r.status_code == 200, r.text
    assert len(r.json()["table"]["seats"]) == count


@pytest.mark.parametrize(
    ("names", "why"),
    [
        (NAMES[:1], "names"),  # one player is no game
        ([*NAMES, "Ivy"], "names"),  # nine do not fit the rules
        ([], "names"),
        (["Maya", "  "], "blank"),
        (["Maya", "x" * 33], "at most 32"),
        (["Maya", "Bo\u202e"], "control and format characters"),
        (["Maya", "Bo", "maya"], "name of their own"),  # "pass to Maya": which one?
    ],
)
def test_player_counts_and_names_are_checked_and_nothing_is_made(
    server: RunningServer, names: list[str], why: str
) -> None:
    r = _create(server, {"preset": "cabo", "names": names})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert detail["code"] == "invalid_request"
    assert why in detail["message"], detail
    assert _tables(server) == 0


def test_the_engine_still_decides_what_a_deck_can_deal(server: RunningServer) -> None:
    r = _create(server, {"preset": "cabo", "names": NAMES, "options": {"hand_size": 8}})
    assert r.status_code == 422, r.text
    assert r.json()["detail"] == {
        "code": "bad_seats",
        "message": "8 players need 65 cards; the deck has 52",
    }
    assert _tables(server) == 0


@pytest.mark.parametrize(
    "options", [{"rounds": 3}, {"score_limit": 100}, {"recollection": True}, {"sudden_death": True}]
)
def test_more_than_one_round_or_a_memory_aid_is_refused(
    server: RunningServer, options: dict[str, Any]
) -> None:
    r = _create(server, {"preset": "kivo", "names": ["Maya", "Bo"], "options": options})
    assert r.status_code == 400, r.text
    detail = r.json()["detail"]
    assert detail["code"] == "bad_rules"
    assert "one round without a memory aid" in detail["message"]
    assert _tables(server) == 0


def test_options_that_agree_with_the_mode_and_other_options_are_kept() -> None:
    options = one_round_options({"rounds": 1, "recollection": False, "caller_penalty": 7})
    assert options == {
        "rounds": 1,
        "score_limit": None,
        "sudden_death": False,
        "recollection": False,
        "caller_penalty": 7,
    }


def test_a_bad_preset_or_option_is_refused(server: RunningServer) -> None:
    r = _create(server, {"preset": "poker", "names": ["Maya", "Bo"]})
    assert (r.status_code, r.json()["detail"]["code"]) == (400, "bad_rules")
    r = _create(server, {"preset": "cabo", "names": ["Maya", "Bo"], "options": {"nope": 1}})
    assert (r.status_code, r.json()["detail"]["code"]) == (400, "bad_rules")
    assert _tables(server) == 0


def test_nobody_else_can_sit_down(server: RunningServer) -> None:
    made = _create(server, {"preset": "cabo", "names": ["Maya", "Bo"]}).json()
    with server.http() as http:
        r = http.post(f"/api/tables/{made['code']}/join", json={"name": "Zed"})
    assert r.status_code == 409
    assert r.json()["detail"]["code"] == "table_started"


def test_each_token_plays_its_own_seat_to_the_end_of_the_one_round(
    server: RunningServer,
) -> None:
    made = _create(server, {"preset": "boyo", "names": ["Maya", "Bo", "Cyd"]}).json()
    tokens = [s["token"] for s in made["seats"]]

    async def play() -> None:
        async with seated(server, made["code"], tokens) as clients:
            assert [c.seat for c in clients] == [0, 1, 2]
            for c in clients:
                assert c.view["seat"] == c.seat
                assert c.view["phase"] == "opening"
                snapshot = next(f for f in c.frames if f["type"] == "snapshot")
                assert snapshot["deadline"] is None  # not timed
            # Maya looks at two cards: they are shown to her seat alone.
            ack = await clients[0].act({"do": "opening_peek", "slots": [0, 1]})
            assert applied(ack), ack
            for c in clients:
                await c.until_seq(ack["seq"])
            assert set(clients[0].view["shown"]) == {"0:0", "0:1"}
            assert clients[1].view["shown"] == {}
            assert clients[2].view["shown"] == {}
            await play_to_end(clients, random.Random(17))
            view = clients[0].view
            assert view["phase"] == "match_over"  # after the first round
            assert view["round"] == 1
            assert view["last_round"]["round"] == 1
            assert view["winners"]

    asyncio.run(play())


@pytest.mark.anyio
async def test_no_timer_runs_and_no_bot_takes_a_seat_while_the_device_is_away() -> None:
    clock = FakeClock()
    config = TableConfig(bot_delay=0.0, grace_seconds=1.0, reveal_seconds=1.0)
    store = MemoryStore()
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, config, clock))
    players = [("p0", "Maya"), ("p1", "Bo")]
    options = one_round_options({})
    table = await lobby.create_started(players, "cabo", options, {MODE: PASS_AND_PLAY})
    assert table.record.status == "playing"
    assert table.deadline is None
    await table.connected(0)
    await table.connected(1)
    await table.disconnected(0)  # the device went to sleep
    await table.disconnected(1)
    await clock.advance(3600.0)
    assert table.standins == {}
    assert table.away == {}
    log = await store.log(table.record.id)
    assert [e.kind for e in log] == ["start"]  # nothing was played for anyone
    # A restarted server loads it the same way: no grace period runs for its seats.
    record = await store.get_table(table.record.id)
    assert record is not None
    again = Lobby(TableContext(store, LocalHub(), make_bot, config, clock))
    assert await again.recover() == 1
    loaded = again.tables[table.record.id]
    assert loaded.away == {}
    assert loaded.deadline is None
    await clock.advance(3600.0)
    assert loaded.standins == {}
    assert [e.kind for e in await store.log(table.record.id)] == ["start"]
    await lobby.close()
    await again.close()


def test_a_seed_or_a_deal_needs_the_test_hooks(server: RunningServer) -> None:
    for extra in ({"seed": 5}, {"deal": {"hands": [["4"] * 4, ["5"] * 4], "discard": "6"}}):
        r = _create(server, {"preset": "cabo", "names": ["Maya", "Bo"], **extra})
        assert r.status_code == 403, r.text
        assert r.json()["detail"]["code"] == "test_hooks_off"
    assert _tables(server) == 0


def test_with_test_hooks_the_first_deal_is_stacked(tmp_path: Path) -> None:
    settings = ServerSettings(data_dir=tmp_path, secret="pass-and-play", test_hooks=True)
    deal = {"hands": [["7S", "2H", "3H", "4H"], ["7C", "2D", "3D", "4D"]], "discard": "7H"}
    with run_server(settings, MemoryStore()) as server:
        r = _create(server, {"preset": "boyo", "names": ["Maya", "Bo"], "deal": deal, "seed": 9})
        assert r.status_code == 200, r.text
        assert "deal" not in r.json()["table"]["settings"]  # never sent to a client
        r = _create(server, {"preset": "boyo", "names": ["Maya", "Bo", "Cyd"], "deal": deal})
        assert r.status_code == 400, r.text
        assert r.json()["detail"]["code"] == "bad_deal"
