"""Long replays through a real server (issue 32 §6): a replay is built off the event loop, so
another table's play goes on while it is built; a match longer than the server builds is
refused with a code before anything is built; the built replays kept are bounded by bytes."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from facedown.engine import Action, Game, make_ruleset
from facedown.engine import actions as A
from facedown.records.matches import ONE_WAY, SEEDING, match_seed
from facedown.server.api import replays as replays_module
from facedown.server.api.replays import ReplayKeys, Replays, replay_bytes
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from facedown.store import LogEntry, MemoryStore, SeatRecord, TableRecord

from ..harness import (
    NO_ADDRESS_LIMITS,
    RunningServer,
    applied,
    create_table,
    harmless,
    run_server,
    seated,
    start,
)

SECRET = "replay-build"  # noqa: S105 - the test server's key
TABLE_SEED = 77


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def long_log(rounds: int, players: int = 4) -> tuple[dict[str, Any], list[LogEntry]]:
    """A finished boyo match whose players never call and TAP at every chance (most TAPs miss):
    every round runs to its bound.  Its rules and its log entries."""
    rules = make_ruleset("boyo", {"rounds": rounds})
    game = Game(rules, players, match_seed(TABLE_SEED, 1))
    rng = random.Random(5)
    entries = [LogEntry(1, "start", {"match": 1, "players": players, SEEDING: ONE_WAY})]
    while not game.is_match_over:
        if game.is_round_over:
            action = Action(0, A.NEXT_ROUND)
        else:
            legal = [a for a in game.all_legal_actions() if a.kind != A.CALL]
            taps = [a for a in legal if a.kind == A.TAP]
            action = rng.choice(taps if taps and rng.random() < 0.6 else legal)
        game.apply(action)
        entries.append(LogEntry(len(entries) + 1, "action", {"action": action.to_json()}))
    return rules.to_json(), entries


def store_match(store: MemoryStore, table_id: str, rounds: int) -> int:
    """A finished table holding one long match; returns its steps."""
    rules, entries = long_log(rounds)
    seats = tuple(SeatRecord(i, "human", f"P{i}", f"p{i}") for i in range(4))
    record = TableRecord(
        id=table_id,
        code=table_id[:6].upper(),
        preset="boyo",
        rules=rules,
        seed=TABLE_SEED,
        host_id="p0",
        status="finished",
        seats=seats,
    )

    async def write() -> None:
        await store.create_table(record)
        for entry in entries:
            await store.append(table_id, entry)

    asyncio.run(write())
    return len(entries)  # the deal and one step per action


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    settings = ServerSettings(
        data_dir=tmp_path,
        secret=SECRET,
        table=TableConfig(bot_delay=600),
        clients=NO_ADDRESS_LIMITS,
        rate=1e6,  # the players act as fast as the server answers
        burst=1e6,
    )
    with run_server(settings, store) as running:
        yield running


def replays_of(server: RunningServer) -> Replays:
    app = server.server.config.app
    assert isinstance(app, FastAPI)
    found = app.state.replays
    assert isinstance(found, Replays)
    return found


def info_url(table_id: str) -> str:
    return f"/api/replays/{table_id}/1?key={ReplayKeys(SECRET).key(table_id, 1)}"


def test_another_table_plays_on_while_a_long_replay_is_built(
    server: RunningServer, store: MemoryStore
) -> None:
    steps = store_match(store, "longmatch1", rounds=5)
    assert steps > 9000  # as long as the match of the issue
    code, tokens = create_table(
        server, "kivo", 2, options={"rounds": 5}, turn_seconds=86400, peek_seconds=600
    )
    asyncio.run(start(server, code, tokens[0]))

    async def race() -> list[str]:
        order: list[str] = []
        async with seated(server, code, tokens) as clients:

            def fetch() -> httpx.Response:
                with server.http() as http:
                    http.timeout = httpx.Timeout(300)
                    return http.get(info_url("longmatch1"))

            building = replays_of(server)._building
            request = asyncio.ensure_future(asyncio.to_thread(fetch))
            # Until the server is building it (the server thread's dict, polled from here).
            while not building and not request.done():  # noqa: ASYNC110
                await asyncio.sleep(0.001)
            while not request.done():  # the other table's players act, one after the other
                actor = next(c for c in clients if harmless(c.legal))
                legal = harmless(actor.legal)
                assert legal is not None
                ack = await actor.act(legal)
                assert applied(ack), ack
                for c in clients:
                    await c.until_seq(ack["seq"])
                if not request.done():
                    order.append("action")
            answer = await request
            assert answer.status_code == 200, answer.text
            assert answer.json()["steps"] == steps
            order.append("replay")
        return order

    order = asyncio.run(race())
    # The actions applied and answered while the replay was being built (counted from when the
    # server began to build it): on the event loop, the build would hold every table of the
    # process until it was done, and at most the one action sent as it began could be answered.
    assert order.index("replay") >= 5, order


def test_a_match_longer_than_the_server_builds_is_refused_with_a_code(
    server: RunningServer, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = store_match(store, "longmatch2", rounds=1)
    monkeypatch.setattr(replays_module, "MAX_STEPS_BUILT", steps - 1)
    with server.http() as http:
        r = http.get(info_url("longmatch2"))
        assert r.status_code == 413, r.text
        assert r.json()["detail"]["code"] == "replay_too_large"
        assert str(steps) in r.json()["detail"]["message"]
        assert replays_of(server).cached_bytes == 0  # nothing was built or kept
        monkeypatch.setattr(replays_module, "MAX_STEPS_BUILT", steps)
        r = http.get(info_url("longmatch2"))
        assert r.status_code == 200, r.text
        assert r.json()["steps"] == steps


def test_the_replays_kept_are_bounded_by_bytes(server: RunningServer, store: MemoryStore) -> None:
    for name in ("bytes1", "bytes2", "bytes3"):
        store_match(store, name, rounds=1)
    replays = replays_of(server)
    with server.http() as http:
        assert http.get(info_url("bytes1")).status_code == 200
        one = replays.cached_bytes
        assert one > 0
        # Room for two of these replays, not three: the least recently used one goes.
        replays.cache_bytes = 2 * one + one // 2
        assert http.get(info_url("bytes2")).status_code == 200
        assert http.get(info_url("bytes1")).status_code == 200  # used again: now the newest
        assert http.get(info_url("bytes3")).status_code == 200
        kept = [table_id for table_id, _ in replays._built]
        assert kept == ["bytes1", "bytes3"]
        assert replays.cached_bytes <= replays.cache_bytes
        assert replays.cached_bytes == sum(replay_bytes(r) for r, _ in replays._built.values())
        # A replay larger than the whole cache is served and not kept.
        replays.cache_bytes = one // 2
        replays._built.clear()
        replays.cached_bytes = 0
        assert http.get(info_url("bytes2")).status_code == 200
        assert replays.cached_bytes == 0
