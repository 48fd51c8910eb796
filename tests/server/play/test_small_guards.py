"""Issue 32 §9's small server items, each tried against a real server as a client would: a
pass-and-play table expires like a lobby, a forfeited seat is sent no legal actions, JSON nested
too deeply is refused with an error code, and a refused table creation costs the address
nothing of its allowance."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from facedown.server.base.addresses import Rate
from facedown.server.base.clock import FakeClock
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.context import TableConfig
from facedown.store import MemoryStore

from ..harness import (
    NO_ADDRESS_LIMITS,
    advance,
    applied,
    client,
    harmless,
    play_to_end,
    run_server,
    seated,
    start,
)

NEVER = 1e-9  # a rate at which no token comes back during a test
DEVICE_ROUTE = "/api/tables/pass-and-play"
HOUR = 3600.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settings(tmp_path: Path, table: TableConfig | None = None, **limits: Any) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="small-guards",
        table=table or TableConfig(),
        clients=replace(NO_ADDRESS_LIMITS, **limits),
    )


def _tables(http: httpx.Client) -> int:
    count: int = http.get("/api/health").json()["tables"]
    return count


# ---------------------------------------------------------------- pass-and-play expiry
@pytest.mark.anyio
async def test_a_pass_and_play_table_expires_like_a_lobby(tmp_path: Path) -> None:
    store, clock = MemoryStore(), FakeClock()
    settings = _settings(tmp_path, TableConfig(pass_and_play_expiry=1000.0))
    with run_server(settings, store, clock) as server, server.http() as http:
        made = http.post(DEVICE_ROUTE, json={"preset": "kivo", "names": ["Maya", "Bo"]})
        assert made.status_code == 200, made.text
        code = made.json()["code"]
        assert made.json()["table"]["status"] == "playing"
        tables = _tables(http)
        await advance(server, clock, 999.0)
        assert http.get(f"/api/tables/{code}").status_code == 200
        await advance(server, clock, 200.0)  # past its expiry, and a sweep has run
        r = http.get(f"/api/tables/{code}")
        assert (r.status_code, r.json()["detail"]["code"]) == (410, "table_closed")
        assert _tables(http) == tables - 1  # no longer held in memory
        record = await store.find_by_code(code)
        assert record is not None
        assert record.status == "closed"
        async with client(server) as c:  # a WebSocket hello is refused as well
            token = made.json()["seats"][0]["token"]
            await c.send({"type": "hello", "table": code, "token": token})
            while (msg := await c.recv())["type"] != "error":
                pass
            assert msg["code"] == "table_closed"

        # One made now, and the server stops while it expires: at the start it is not loaded.
        r = http.post(DEVICE_ROUTE, json={"preset": "cabo", "names": ["Maya", "Bo"]})
        late = r.json()["code"]
    later = FakeClock(clock.now() + 5000.0)
    with run_server(settings, store, later) as server, server.http() as http:
        r = http.get(f"/api/tables/{late}")
        assert (r.status_code, r.json()["detail"]["code"]) == (410, "table_closed")
        record = await store.find_by_code(late)
        assert record is not None
        assert record.status == "closed"


@pytest.mark.anyio
async def test_a_finished_pass_and_play_table_is_let_go_and_stays_finished(
    tmp_path: Path,
) -> None:
    store, clock = MemoryStore(), FakeClock()
    settings = replace(
        _settings(tmp_path, TableConfig(pass_and_play_expiry=1000.0)), rate=1e6, burst=1e6
    )
    with run_server(settings, store, clock) as server, server.http() as http:
        made = http.post(DEVICE_ROUTE, json={"preset": "cabo", "names": ["Maya", "Bo"]}).json()
        tokens = [seat["token"] for seat in made["seats"]]
        async with seated(server, made["code"], tokens) as clients:
            await play_to_end(clients, random.Random(3))
        code = made["code"]
        assert http.get(f"/api/tables/{code}").json()["status"] == "finished"
        tables = _tables(http)
        await advance(server, clock, 1200.0)  # past its expiry, and a sweep has run
        r = http.get(f"/api/tables/{code}")
        assert (r.status_code, r.json()["detail"]["code"]) == (410, "table_closed")
        assert _tables(http) == tables - 1  # no longer held in memory
        record = await store.find_by_code(code)
        assert record is not None
        assert record.status == "finished"  # as it ended: its match is still in the history


# ---------------------------------------------------------------- a forfeited seat
@pytest.mark.anyio
async def test_a_forfeited_seat_is_sent_no_legal_actions(tmp_path: Path) -> None:
    """Bob misses three deadlines of a turn-based table and his seat is forfeited to a bot:
    when it is his seat's turn, his frames list nothing he may do (the bot plays it)."""
    clock = FakeClock()
    settings = _settings(tmp_path, TableConfig(bot_delay=60.0))
    with run_server(settings, clock=clock) as server, server.http() as http:
        body = {
            "preset": "kivo",
            "seats": 2,
            "name": "Ann",
            "options": {"rounds": 1},
            "mode": "turn_based",
            "move_deadline": 3600,
        }
        r = http.post("/api/tables", json=body)
        assert r.status_code == 200, r.text
        code, ann_token = r.json()["code"], r.json()["token"]
        r = http.post(f"/api/tables/{code}/join", json={"name": "Bob"})
        bob_token = r.json()["token"]
        await start(server, code, ann_token)

        def forfeited() -> bool:
            seats = http.get(f"/api/tables/{code}").json()["seats"]
            return bool(seats[1]["forfeited"])

        async with seated(server, code, [ann_token]) as [ann]:
            for _ in range(200):  # Ann plays at once; each time the table waits for Bob, an hour
                if forfeited():
                    break
                await ann.settle()
                action = harmless([a for a in ann.legal if a["do"] != "tap"])
                if action is not None:
                    assert applied(await ann.act(action))
                else:
                    await advance(server, clock, HOUR + 1)
            assert forfeited()
            # Ann plays on until it is the forfeited seat's turn (its bot waits a minute).
            for _ in range(20):
                await advance(server, clock, 0)
                await ann.settle()
                action = harmless([a for a in ann.legal if a["do"] != "tap"])
                if action is None:
                    break
                assert applied(await ann.act(action))
            assert ann.view["to_act"] == 1, ann.view
            async with seated(server, code, [bob_token]) as [bob]:
                snapshot = next(f for f in reversed(bob.frames) if f["type"] == "snapshot")
                assert snapshot["view"]["to_act"] == 1  # his seat's turn ...
                assert snapshot["legal"] == []  # ... and nothing for him to do
                assert snapshot["sets"] == 0
                await advance(server, clock, 61.0)  # the bot plays his seat
                event = await bob.until("event")
                assert event["legal"] == []
                assert event["sets"] == 0
                refused = await bob.act({"do": "draw"})
                assert refused.get("code") == "seat_forfeited", refused


# ---------------------------------------------------------------- JSON nested too deeply
DEEP = '{"name": ' + "[" * 5000 + "]" * 5000 + "}"


@pytest.mark.parametrize(
    "route", ["/api/tables", DEVICE_ROUTE, "/api/account/signup", "/api/ranked/queue"]
)
def test_json_nested_too_deeply_is_refused_with_a_code(tmp_path: Path, route: str) -> None:
    with run_server(_settings(tmp_path), MemoryStore()) as server, server.http() as http:
        r = http.post(route, content=DEEP, headers={"content-type": "application/json"})
        assert r.status_code == 400, r.text
        assert r.json()["detail"]["code"] == "malformed_json"
        # The server still answers afterwards.
        assert http.get("/api/health").status_code == 200


# ---------------------------------------------------------------- refused creations
@pytest.mark.parametrize(
    ("route", "refused", "good"),
    [
        (
            "/api/tables",
            {"preset": "nope", "seats": 2, "name": "Ann"},
            {"preset": "kivo", "seats": 2, "name": "Ann"},
        ),
        (
            "/api/tables",
            {"preset": "kivo", "seats": 2, "name": "Ann", "seed": 7},  # a test hook, refused
            {"preset": "kivo", "seats": 2, "name": "Ann"},
        ),
        (
            DEVICE_ROUTE,
            {"preset": "kivo", "names": ["Maya", "Bo"], "options": {"rounds": 3}},
            {"preset": "kivo", "names": ["Maya", "Bo"]},
        ),
        (
            DEVICE_ROUTE,
            {"preset": "cabo", "names": ["Maya", "Bo"], "options": {"hand_size": 40}},
            {"preset": "cabo", "names": ["Maya", "Bo"]},
        ),
    ],
)
def test_a_refused_creation_costs_the_address_nothing(
    tmp_path: Path, route: str, refused: dict[str, Any], good: dict[str, Any]
) -> None:
    settings = _settings(tmp_path, creates=Rate(NEVER, 2))
    with run_server(settings, MemoryStore()) as server, server.http() as http:
        for _ in range(5):
            r = http.post(route, json=refused)
            assert r.status_code in (400, 403, 422), r.text
            assert r.json()["detail"]["code"] != "rate_limited"
        # The allowance of two is whole: two tables are made, and the third is refused for it.
        assert [http.post(route, json=good).status_code for _ in range(2)] == [200, 200]
        r = http.post(route, json=good)
        assert (r.status_code, r.json()["detail"]["code"]) == (429, "rate_limited")
