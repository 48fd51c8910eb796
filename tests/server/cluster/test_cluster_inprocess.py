"""Two apps of one test process as a cluster (each uvicorn in a thread of its own) on a
PostgreSQL database of their own and the real Redis: what needs settings the command line does
not offer, here a short idle limit for spectators, and fast ranked matchmaking (players queued
on two processes are matched once, by the matchmaker's one holder, which moves when it stops);
and what needs a look inside the processes: the relay's latency metric, and a relayed player
whose seat moves."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import cast

import httpx
import pytest
from fastapi import FastAPI
from websockets.exceptions import ConnectionClosed

from facedown.server.base.addresses import ClientLimits
from facedown.server.cluster.ownership import ONCE_LEASE
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.lobby import Lobby
from facedown.server.play.ranked import MATCHMAKER
from facedown.store import RankedStore, open_store
from tests.store.conftest import postgres_database

from ..harness import (
    NO_ADDRESS_LIMITS,
    UNLIMITED,
    RunningServer,
    applied,
    begin,
    client,
    create_table,
    harmless,
    run_server,
)
from ..ranked_helpers import account, matched, queue, ranked_settings

REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_relayed_spectator_that_sends_nothing_is_closed_as_idle(tmp_path: Path) -> None:
    async with postgres_database() as url:
        settings = _pair(tmp_path, url, replace(NO_ADDRESS_LIMITS, spectator_idle=1.0))
        with contextlib.ExitStack() as stack:
            owner = stack.enter_context(run_server(settings("a")))
            other = stack.enter_context(run_server(settings("b")))
            code, tokens = create_table(owner, "cabo", 2)  # made, and owned, by the first
            async with client(other) as watcher, client(other) as player:
                await watcher.hello(code, spectate=True)  # relayed to the owner
                await player.hello(code, tokens[1])
                assert watcher.seat is None
                assert await watcher.close_code(timeout=20) == 4002
                assert any(f.get("code") == "idle" for f in watcher.frames)
                await player.pong()  # a seated player is never closed for being quiet


def _lobby(server: RunningServer) -> Lobby:
    app = server.server.config.app
    assert isinstance(app, FastAPI)
    lobby: Lobby = app.state.lobby()
    return lobby


def _hops(server: RunningServer, to: str) -> float:
    """How many relayed frames this process observed arriving, for ``to`` (its metric)."""
    text = _lobby(server).ctx.metrics.render().decode()
    name = f'facedown_relay_hop_seconds_count{{to="{to}"}} '
    return sum(float(x.rsplit(" ", 1)[1]) for x in text.splitlines() if x.startswith(name))


def _pair(
    tmp_path: Path, url: str, clients: ClientLimits = NO_ADDRESS_LIMITS
) -> Callable[[str], ServerSettings]:
    """The settings of each process of a cluster on ``url``, by name (its data folder)."""

    def settings(name: str) -> ServerSettings:
        return ServerSettings(
            data_dir=tmp_path / name,
            database_url=url,
            redis_url=REDIS,
            secret="inprocess",
            clients=clients,
        )

    return settings


@pytest.mark.anyio
async def test_the_relay_hop_is_observed_where_relayed_frames_arrive(tmp_path: Path) -> None:
    async with postgres_database() as url:
        settings = _pair(tmp_path, url)
        with run_server(settings("a")) as owner, run_server(settings("b")) as other:
            code, tokens = create_table(owner, "cabo", 2)  # made, and owned, by the first
            assert _hops(owner, "owner") == _hops(other, "client") == 0
            async with client(owner) as ann, client(other) as bob:
                await ann.hello(code, tokens[0])
                await bob.hello(code, tokens[1])  # relayed: hello, welcome, table frames
                await begin(ann, [bob])
                sent = 2  # Bob's hello, and his ping in begin
                for _ in range(4):  # the opening peeks, then turns: Bob acts at least once
                    actor = next(c for c in (bob, ann) if harmless(c.legal))
                    action = harmless(actor.legal)
                    assert action is not None
                    ack = await actor.act(action)
                    assert applied(ack), ack
                    sent += actor is bob
                    for c in (ann, bob):
                        await c.until_seq(ack["seq"])
                await bob.settle()  # every frame sent to Bob so far has reached him
                sent += 1
            # Each of Bob's frames arrived at the owner once, each frame for Bob at his
            # process; nothing went the other way.
            assert _hops(owner, "owner") == sent
            assert _hops(other, "client") >= len(bob.frames) > sent
            assert _hops(owner, "client") == _hops(other, "owner") == 0


@pytest.mark.anyio
async def test_a_relayed_player_whose_seat_moves_gets_the_new_seats_messages(
    tmp_path: Path,
) -> None:
    async with postgres_database() as url:
        settings = _pair(tmp_path, url)
        with run_server(settings("a")) as owner, run_server(settings("b")) as other:
            code, tokens = create_table(owner, "cabo", 3)  # Ann, P1 and P2 have joined
            async with client(owner) as ann, client(other) as p2:
                await ann.hello(code, tokens[0])
                await p2.hello(code, tokens[2])  # relayed to the owner
                assert p2.seat == 2
                await ann.settle()
                await p2.settle()
                await ann.send({"type": "remove_seat", "seat": 1})  # P2 moves to seat 1
                moved = await p2.until("table")
                assert moved["seat"] == 1
                assert len(moved["table"]["seats"]) == 2
                await begin(ann, [p2])  # the events of seat 1 reach P2, who acts as seat 1
                assert {a["by"] for a in p2.legal} == {1}
                action = harmless(p2.legal)
                assert action is not None
                ack = await p2.act(action)
                assert applied(ack), ack


def _node(server: RunningServer) -> str:
    """The cluster node id of a running app (what its leases are held by)."""
    app = server.server.config.app
    assert isinstance(app, FastAPI)
    lobby: Lobby = app.state.lobby()
    return lobby.ownership.node


@pytest.mark.anyio
async def test_ranked_players_on_two_processes_are_matched_once_and_the_matching_moves(
    tmp_path: Path,
) -> None:
    async with postgres_database() as url:

        def settings(name: str) -> ServerSettings:
            return ranked_settings(tmp_path / name, database_url=url, redis_url=REDIS)

        async def matchmaker() -> tuple[str, int]:
            store = await open_store(url)
            try:
                found = await store.get_lease(ONCE_LEASE + MATCHMAKER)
                assert found is not None
                return found[0].owner, found[0].fence
            finally:
                await store.close()

        async def matches() -> list[set[str]]:
            store = await open_store(url)
            try:
                ranked = cast(RankedStore, store)
                return [{s.user_id for s in m.seats} for m in await ranked.unrated_matches()]
            finally:
                await store.close()

        with contextlib.ExitStack() as first, contextlib.ExitStack() as second:
            servers = {
                "a": first.enter_context(run_server(settings("a"))),
                "b": second.enter_context(run_server(settings("b"))),
            }
            with account(servers["a"], "Ann") as ann, account(servers["b"], "Bob") as bob:
                queue(ann, "kivo", 2)
                queue(bob, "kivo", 2)
                a, b = matched(ann), matched(bob)
                assert a["code"] == b["code"]  # one match, whichever process made it
                assert {a["seat"], b["seat"]} == {0, 1}
            assert len(await matches()) == 1
            owner, fence = await matchmaker()
            holder = next(n for n, s in servers.items() if _node(s) == owner)
            other = "b" if holder == "a" else "a"
            # The holder stops: its lease goes with it, and the other process matches on.
            (first if holder == "a" else second).close()
            with account(servers[other], "Cyd") as cy, account(servers[other], "Dee") as dee:
                queue(cy, "kivo", 2)
                queue(dee, "kivo", 2)
                assert matched(cy)["code"] == matched(dee)["code"]
            assert len(await matches()) == 2
            assert await matchmaker() == (_node(servers[other]), fence + 1)


@pytest.mark.anyio
async def test_a_stolen_account_token_dies_on_every_process_when_its_session_ends(
    tmp_path: Path,
) -> None:
    """The seat token is checked against the sessions in the shared database: signed out on
    one process, a copy of it is refused on the other (the table's owner) and relayed alike."""
    limits = replace(NO_ADDRESS_LIMITS, signins=UNLIMITED, signups=UNLIMITED)
    async with postgres_database() as url:
        settings = _pair(tmp_path, url, limits)
        with contextlib.ExitStack() as stack:
            owner = stack.enter_context(run_server(settings("a")))
            other = stack.enter_context(run_server(settings("b")))
            async with httpx.AsyncClient(base_url=owner.url, timeout=30) as ann:
                body = {"name": "Ann", "password": "correct horse"}
                assert (await ann.post("/api/account/signup", json=body)).status_code == 201
                r = await ann.post("/api/tables", json={"preset": "kivo", "seats": 2})
                code, stolen = r.json()["code"], r.json()["token"]  # owned by the first
                async with client(other) as thief:
                    await thief.hello(code, stolen)  # relayed to the owner: it works for now
                    assert thief.seat == 0
                ended = await ann.post(f"{other.url}/api/account/signout-everywhere")
                assert ended.json() == {"ended": 1}
            for server in (other, owner):
                async with client(server) as thief:
                    await thief.send({"type": "hello", "table": code, "token": stolen})
                    answer = await thief.recv()
                    assert (answer["type"], answer.get("code")) == ("error", "bad_token")


@pytest.mark.anyio
async def test_open_connections_of_a_stolen_token_close_on_every_process_when_its_session_ends(
    tmp_path: Path,
) -> None:
    """Two thieves hold the seat open with a copy of the token: one on the table's owner, one on
    the other process (relayed).  Signed out on the other process: its thief is closed at
    once, the owner's when the owner next checks the sessions behind its open seats."""
    limits = replace(NO_ADDRESS_LIMITS, signins=UNLIMITED, signups=UNLIMITED)
    async with postgres_database() as url:
        pair = _pair(tmp_path, url, limits)

        def settings(name: str) -> ServerSettings:
            return replace(pair(name), session_check=0.5)

        with run_server(settings("a")) as owner, run_server(settings("b")) as other:
            async with httpx.AsyncClient(base_url=owner.url, timeout=30) as ann:
                body = {"name": "Ann", "password": "correct horse"}
                assert (await ann.post("/api/account/signup", json=body)).status_code == 201
                r = await ann.post("/api/tables", json={"preset": "kivo", "seats": 2})
                code, stolen = r.json()["code"], r.json()["token"]  # owned by the first
                async with client(owner) as here, client(other) as relayed:
                    await here.hello(code, stolen)
                    await relayed.hello(code, stolen)
                    assert here.seat == relayed.seat == 0
                    ended = await ann.post(f"{other.url}/api/account/signout-everywhere")
                    assert ended.json() == {"ended": 1}
                    for thief in (relayed, here):
                        error = await thief.until("error", timeout=10)
                        assert error["code"] == "bad_token"
                        with pytest.raises(ConnectionClosed) as closed:
                            await thief.recv(timeout=10)
                        assert closed.value.rcvd is not None
                        assert closed.value.rcvd.code == 4003
