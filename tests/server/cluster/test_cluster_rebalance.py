"""A cluster rebalancing its tables (issue 18): two apps of one test process (each uvicorn in a
thread of its own, as in test_cluster_inprocess.py) on a PostgreSQL database of their own and
the real Redis.  The first owns every table; the second joins, and gets about half of them,
each exactly as it was, while the players of a table that moves reconnect and play on with
nothing lost; ownership then settles.  With rebalancing off nothing moves."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from facedown.server.cluster.ownership import Rebalance, RebalanceTables
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import Table
from tests.store.conftest import postgres_database

from ..cluster_harness import Cluster
from ..cluster_players import Player, check_log, play
from ..harness import (
    NO_ADDRESS_LIMITS,
    RunningServer,
    applied,
    begin,
    client,
    create_table,
    harmless,
    on_loop,
    run_server,
    seated,
)

REDIS = "redis://127.0.0.1:6379/0"
EVERY = 1.0  # seconds between a process's looks at its share (the default is 5)
WITHIN = 90.0  # seconds the cluster may take to get somewhere (a bound, on a loaded machine)
STEADY = 5.0  # seconds without a change of owner that count as settled (five periods)

Owners = dict[str, tuple[str, int]]  # table id -> (owner node, fence) of a lease held now


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def settings(tmp_path: Path, name: str, url: str, tables: RebalanceTables) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path / name,
        database_url=url,
        redis_url=REDIS,
        secret="rebalance",
        clients=NO_ADDRESS_LIMITS,
        rebalance=Rebalance(tables, every=EVERY, margin=1),
    )


def lobby_of(server: RunningServer) -> Lobby:
    app = server.server.config.app
    assert isinstance(app, FastAPI)
    lobby: Lobby = app.state.lobby()
    return lobby


def node_of(server: RunningServer) -> str:
    return lobby_of(server).ownership.node


def handed_over(server: RunningServer) -> float:
    """The tables this process handed over so far (its metric)."""
    text = lobby_of(server).ctx.metrics.render().decode()
    [line] = [x for x in text.splitlines() if x.startswith("facedown_tables_handed_over_total ")]
    return float(line.split()[1])


async def owners(db: Cluster) -> Owners:
    """Every table's lease that is held now (a lease let go and not taken yet is left out)."""
    rows = await db.sql(
        "SELECT substr(name, 7), owner, fence FROM leases WHERE name LIKE 'table:%' "
        "AND expires_at > extract(epoch from clock_timestamp())"
    )
    return {str(t): (str(owner), int(fence)) for t, owner, fence in rows}


def count(held: Owners, node: str) -> int:
    return sum(owner == node for owner, _ in held.values())


async def settled(db: Cluster, tables: int, ready: Callable[[Owners], bool]) -> Owners:
    """Wait (bounded) until every one of ``tables`` is held, ``ready`` holds, and no table
    changed hands for STEADY seconds; the owners then."""
    deadline = time.monotonic() + WITHIN
    last: Owners = {}
    since = time.monotonic()
    while True:
        held = await owners(db)
        if held != last:
            last, since = held, time.monotonic()
        elif len(held) == tables and ready(held) and time.monotonic() - since >= STEADY:
            return held
        assert time.monotonic() < deadline, f"ownership never settled: {held}"
        await asyncio.sleep(0.25)


async def until(condition: Callable[[], Awaitable[bool]]) -> None:
    deadline = time.monotonic() + WITHIN
    while not await condition():
        assert time.monotonic() < deadline, "it never happened"
        await asyncio.sleep(0.1)


async def turn_based_table(server: RunningServer, moves: int) -> tuple[str, list[str]]:
    """A two-player turn-based table, started, ``moves`` harmless moves played, everyone gone."""
    code, tokens = create_table(server, "cabo", 2, mode="turn_based")
    async with seated(server, code, tokens) as clients:
        await begin(clients[0], clients[1:])
        for _ in range(moves):
            actor = next(c for c in clients if harmless(c.legal))
            action = harmless(actor.legal)
            assert action is not None
            ack = await actor.act(action)
            assert applied(ack), ack
            for c in clients:
                await c.until_seq(ack["seq"])
    return code, tokens


async def snapshots(server: RunningServer, code: str, tokens: list[str]) -> list[dict[str, Any]]:
    """What each seat is shown on coming back (the snapshot, without the server's clock)."""
    shown = []
    for token in tokens:
        async with client(server) as c:
            frames = await c.hello(code, token)
            [snapshot] = [f for f in frames if f["type"] == "snapshot"]
            shown.append({k: v for k, v in snapshot.items() if k != "now"})
    return shown


async def no_one_at(server: RunningServer, table_ids: list[str]) -> None:
    """Until the owner has seen every client of these tables leave."""

    async def empty() -> bool:
        hub = lobby_of(server).hub
        return not any(hub.subscribers(t) for t in table_ids)

    await until(empty)


async def live_table(db: Cluster, server: RunningServer, urls: list[str]) -> list[Player]:
    """A two-player Live table with long timers, started, its players connected to ``server``
    (reconnecting to the next of ``urls`` when closed)."""
    code, tokens = create_table(server, "cabo", 2, turn_seconds=3600, peek_seconds=600)
    players = [Player(db, code, t, urls, 0) for t in tokens]
    for p in players:
        await p.open()
    await players[0].c.send({"type": "start"})
    for p in players:
        await p.until_seq(1)
    return players


async def keep_playing(players: list[Player], seed: int, stop: asyncio.Event) -> None:
    """Play one action after another (a breath between them) until ``stop`` or the match ends."""
    rng = random.Random(seed)
    while not stop.is_set():
        if await play(players, rng, 1) == 0:
            return
        await asyncio.sleep(0.05)


async def table_id(db: Cluster, code: str) -> str:
    [(found,)] = await db.sql("SELECT id FROM tables WHERE code = :c", c=code)
    return str(found)


@pytest.mark.anyio
async def test_a_process_that_joins_gets_half_the_idle_tables_exactly_as_they_were(
    tmp_path: Path,
) -> None:
    """Rebalancing of idle tables (the default): six turn-based tables nobody is at, and two
    Live tables whose players stay connected to the first process.  The second process gets
    four idle tables, each showing every seat what it showed before, its log untouched; the
    Live tables stay where their players are, and play on."""
    async with postgres_database() as url:
        db = Cluster(url, REDIS, [], tmp_path)
        with contextlib.ExitStack() as first, contextlib.ExitStack() as second:
            a = first.enter_context(run_server(settings(tmp_path, "a", url, "idle")))
            urls = [a.ws_url]
            idle = [await turn_based_table(a, moves) for moves in range(6)]
            ids = {code: await table_id(db, code) for code, _ in idle}
            live = [await live_table(db, a, urls) for _ in range(2)]
            live_ids = [await table_id(db, p[0].code) for p in live]
            await play(live[0], random.Random(1), 6)
            before = {code: await snapshots(a, code, tokens) for code, tokens in idle}
            logs = {code: await db.log(ids[code]) for code, _ in idle}
            await no_one_at(a, list(ids.values()))
            held = await owners(db)
            assert count(held, node_of(a)) == 8

            b = second.enter_context(run_server(settings(tmp_path, "b", url, "idle")))
            urls.append(b.ws_url)
            # fair share: ceil(8 / 2) = 4; 8 > 4 + 1, so four idle tables go over.
            held = await settled(db, 8, lambda h: count(h, node_of(b)) >= 4)
            assert count(held, node_of(a)) == 4
            assert count(held, node_of(b)) == 4
            for t in live_ids:  # their players are connected: they stay
                assert held[t] == (node_of(a), 1)
            moved = [t for t in ids.values() if held[t][0] == node_of(b)]
            assert len(moved) == 4
            assert all(held[t][1] == 2 for t in moved)  # taken once, from a: no ping-pong
            assert handed_over(a) == 4  # and a took none of them back (to hand it over again)
            assert handed_over(b) == 0
            for code, tokens in idle:
                assert await db.log(ids[code]) == logs[code]  # a move writes nothing
                # Asked at b: its own tables, or relayed to a.
                assert await snapshots(b, code, tokens) == before[code]
            for players in live:  # the players who stayed play on, nobody reconnected
                await play(players, random.Random(2), 4)
                assert sum(p.reconnections for p in players) == 0
            for t, players in zip(live_ids, live, strict=True):
                await check_log(db, t, players)
            assert await owners(db) == held  # still as it settled


@pytest.mark.anyio
async def test_tables_with_players_move_too_and_they_play_on_with_nothing_lost(
    tmp_path: Path,
) -> None:
    """``tables="all"``: with two idle tables and four Live tables whose players play on
    through the first process, half the tables move (the idle ones first, then one with its
    players, who are told to reconnect); every acknowledged action is in each table's log
    once, every player saw every event; ownership settles and stays."""
    async with postgres_database() as url:
        db = Cluster(url, REDIS, [], tmp_path)
        with contextlib.ExitStack() as first, contextlib.ExitStack() as second:
            a = first.enter_context(run_server(settings(tmp_path, "a", url, "all")))
            urls = [a.ws_url]
            idle = [await turn_based_table(a, 2) for _ in range(2)]
            idle_ids = [await table_id(db, code) for code, _ in idle]
            logs = [await db.log(t) for t in idle_ids]
            live = [await live_table(db, a, urls) for _ in range(4)]
            live_ids = [await table_id(db, p[0].code) for p in live]
            await no_one_at(a, idle_ids)
            stop = asyncio.Event()
            games = [
                asyncio.create_task(keep_playing(players, seed, stop))
                for seed, players in enumerate(live)
            ]
            try:
                b = second.enter_context(run_server(settings(tmp_path, "b", url, "all")))
                urls.append(b.ws_url)  # a player closed by a reconnects to b (or a again)
                # fair share: ceil(6 / 2) = 3; 6 > 3 + 1: the two idle tables, then a Live one.
                held = await settled(db, 6, lambda h: count(h, node_of(b)) >= 3)
            finally:
                stop.set()
                await asyncio.gather(*games)
            assert {count(held, node_of(a)), count(held, node_of(b))} == {3}
            assert all(held[t][0] == node_of(b) for t in idle_ids)
            moved = [i for i, t in enumerate(live_ids) if held[t][0] == node_of(b)]
            assert len(moved) == 1
            assert all(fence <= 2 for _, fence in held.values())  # each moved once at most
            assert (handed_over(a), handed_over(b)) == (3, 0)
            for t, log in zip(idle_ids, logs, strict=True):
                assert await db.log(t) == log
            mover = live[moved[0]]
            assert sum(p.reconnections for p in mover) >= 1  # told to reconnect, they did
            for seed, players in enumerate(live):  # every table plays on, where it is now
                played = await play(players, random.Random(100 + seed), 4)
                assert played == 4 or players[0].c.view.get("phase") == "match_over"
            for t, players in zip(live_ids, live, strict=True):
                await check_log(db, t, players)
            assert await owners(db) == held  # still as it settled


@pytest.mark.anyio
async def test_with_rebalancing_off_nothing_moves(tmp_path: Path) -> None:
    """The first process, rebalancing off, owns six idle tables; the second joins (with it
    on).  The first knows it owns more than its share, and hands nothing over."""
    async with postgres_database() as url:
        db = Cluster(url, REDIS, [], tmp_path)
        with contextlib.ExitStack() as first, contextlib.ExitStack() as second:
            a = first.enter_context(run_server(settings(tmp_path, "a", url, "off")))
            idle = [await turn_based_table(a, 1) for _ in range(6)]
            ids = [await table_id(db, code) for code, _ in idle]
            await no_one_at(a, ids)
            held = await owners(db)
            assert count(held, node_of(a)) == 6
            b = second.enter_context(run_server(settings(tmp_path, "b", url, "idle")))

            async def over_its_share() -> bool:  # a has heard b's heartbeat: it would hand 3
                return lobby_of(a).surplus() == 3

            await until(over_its_share)
            started = time.monotonic()
            while time.monotonic() - started < STEADY:  # five periods of rebalancing
                assert await owners(db) == held
                await asyncio.sleep(0.25)
            assert count(await owners(db), node_of(b)) == 0
            assert handed_over(a) == 0
            async with client(b) as c:  # a's tables are served to b's clients, relayed
                frames = await c.hello(idle[0][0], idle[0][1][0])
                assert any(f["type"] == "snapshot" for f in frames)
            assert await owners(db) == held


@pytest.mark.anyio
async def test_a_join_relayed_to_a_new_owner_still_loading_the_table_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table just handed over: a join that arrives at its old owner is relayed to the new
    one as soon as the new one holds the lease, which is while it still loads the table from
    its log.  The new owner answers once the table is loaded: the player gets a seat, not a
    503 saying the table moved (the load benchmark's setup ran into it, a few joins in 300)."""
    async with postgres_database() as url:
        db = Cluster(url, REDIS, [], tmp_path)
        with contextlib.ExitStack() as first, contextlib.ExitStack() as second:
            a = first.enter_context(run_server(settings(tmp_path, "a", url, "off")))
            b = second.enter_context(run_server(settings(tmp_path, "b", url, "off")))
            with a.http() as http:
                r = http.post("/api/tables", json={"preset": "cabo", "seats": 3, "name": "Ann"})
                r.raise_for_status()
                code = r.json()["code"]
            t = await table_id(db, code)
            old, new = lobby_of(a), lobby_of(b)
            # The new owner loads the table only once the relayed call has reached it.
            # (An asyncio.Event of b's loop, where both functions run; the test only reads it.)
            loaded, served, relayed = new.load, new.served, asyncio.Event()

            async def slowly(*args: Any, **kwargs: Any) -> Any:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(relayed.wait(), WITHIN)
                return await loaded(*args, **kwargs)

            async def noted(table_id: str) -> Table | None:
                relayed.set()
                return await served(table_id)

            monkeypatch.setattr(new, "load", slowly)
            monkeypatch.setattr(new, "served", noted)
            assert await on_loop(a, old.hand_over(old.tables[t]))
            taking = on_loop(b, new.locate(code))

            async def held_by_b() -> bool:
                return (await owners(db)).get(t, ("", 0))[0] == node_of(b)

            await until(held_by_b)
            assert not taking.done()  # b holds the lease and is still loading the table

            def join() -> httpx.Response:
                with a.http() as http:
                    return http.post(f"/api/tables/{code}/join", json={"name": "Bo"})

            r = await asyncio.to_thread(join)
            assert r.status_code == 200, r.text
            assert relayed.is_set()  # the call reached b while it was loading the table
            assert r.json()["seat"] == 1
            assert isinstance(await taking, Table)
            assert [s.name for s in new.tables[t].record.seats if s.kind == "human"] == [
                "Ann",
                "Bo",
            ]
            assert (await owners(db))[t] == (node_of(b), 2)  # taken once, from a
