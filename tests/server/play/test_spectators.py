"""Spectators see only public information.

A spectator is a connection without a seat: no token, a token asked to spectate (even the
host's), or a token of a player who has no seat at this table.  Every frame a spectator receives,
live or in a catch-up, holds no "seen" card, no "shown" card, no "knowledge", no powers, no legal
actions, a held card's face only when it came from the discard pile, and never the seed or the
draw pile; each view and event is exactly the engine's public one at that seq.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from facedown.engine import SPECTATOR, Action, Event, Game, Ruleset, observe
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig, match_seed
from facedown.store import MemoryStore

from ..harness import (
    NO_ADDRESS_LIMITS,
    Player,
    RunningServer,
    applied,
    client,
    create_table,
    run_server,
    start,
)

SECRET_KEYS = {"seen", "shown", "knowledge", "powers", "seed", "draw_pile", "deck", "private"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def keys(value: Any) -> set[str]:
    """Every key in a message that holds something (not null, not empty), except inside the
    table's ruleset (public rules data that has fields named ``deck`` and ``powers``)."""
    if isinstance(value, dict):
        inner = {k for name, v in value.items() if name != "rules" for k in keys(v)}
        return {k for k, v in value.items() if v not in (None, [], {})} | inner
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def numbers(value: Any) -> set[int]:
    if isinstance(value, dict):
        return {n for v in value.values() for n in numbers(v)}
    if isinstance(value, list):
        return {n for v in value for n in numbers(v)}
    return {value} if isinstance(value, int) and not isinstance(value, bool) else set()


def check_public(frames: list[dict[str, Any]], seeds: set[int]) -> int:
    """The brief's rules for one spectator's frames, in order; returns how many had a view."""
    top_before: str | None = None
    viewed = 0
    for frame in frames:
        assert not (keys(frame) & SECRET_KEYS), f"a secret reached a spectator: {frame}"
        assert not (numbers(frame) & seeds), "a seed reached a spectator"
        if frame["type"] == "welcome":
            assert frame["seat"] is None
        if frame["type"] not in ("event", "snapshot"):
            continue
        viewed += 1
        assert frame["legal"] == []
        state = frame["view"]
        assert state["seat"] is None
        if state["phase"] == "holding":  # drawn from the pile: face down to everyone else
            assert state["held"] is None
        if state["phase"] == "taken":  # taken from the discard pile: everyone saw it there
            assert state["held"] is not None
            if frame["type"] == "event" and frame["events"][0]["type"] == "took_discard":
                assert state["held"] == top_before
        top_before = state["top_discard"]
    return viewed


async def replay_check(store: MemoryStore, code: str, frames: list[dict[str, Any]]) -> None:
    """Each view and event is the engine's public one at that seq (the log is replayed)."""
    record = await store.find_by_code(code)
    assert record is not None
    rules = Ruleset.from_json(record.rules)
    game: Game | None = None
    at: dict[int, tuple[Game, list[Event]]] = {}
    for entry in await store.log(record.id):
        events: list[Event] = []
        if entry.kind == "start":
            game = Game(rules, int(entry.payload["players"]), match_seed(record.seed, 1))
        else:
            assert game is not None
            events = game.apply(Action.from_json(entry.payload["action"]))
        assert game is not None
        at[entry.seq] = (game.clone(), events)
    for frame in frames:
        if frame["type"] in ("event", "snapshot", "missed"):
            state, events = at[frame["seq"]]
            watched = observe(state, SPECTATOR, events)
            public = [e.to_json() for e in watched.events]
            if frame["type"] != "missed":
                assert frame["view"] == watched.view.to_json()
            if frame["type"] != "snapshot":
                assert frame["events"] == public


async def watch_and_come_back(
    server: RunningServer, code: str, live: Player
) -> list[dict[str, Any]]:
    """A spectator that leaves mid-match and returns with its last seq; all it received."""
    frames: list[dict[str, Any]] = []
    async with client(server) as first:
        await first.hello(code)
        while first.seq < 8:
            await first.recv(10)
        frames += first.frames
        last_seq = first.seq
    while live.seq < last_seq + 6 and not live.done:
        live.progress.clear()
        await live.progress.wait()
    async with client(server) as back:
        caught_up = await back.hello(code, last_seq=last_seq)
        missed = [f["seq"] for f in caught_up if f["type"] == "missed"]
        assert missed, "a spectator coming back gets what it missed"
        assert missed == list(range(last_seq + 1, caught_up[-1]["seq"] + 1))
        frames += back.frames
    return frames


@pytest.mark.anyio
async def test_spectators_receive_only_public_information(tmp_path: Path) -> None:
    store = MemoryStore()
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="spectators",
        table=TableConfig(bot_delay=0.0, reveal_seconds=0.01),
        rate=1e6,
        clients=NO_ADDRESS_LIMITS,
        burst=1e6,
    )
    with run_server(settings, store) as server:
        code, tokens = create_table(server, "boyo", 3, options={"rounds": 2}, bots=["random"])
        _, elsewhere = create_table(server, "kivo", 2)  # a player seated at another table
        players = [Player(server.ws_url, code, t, seed=i) for i, t in enumerate(tokens)]
        watchers = [
            Player(server.ws_url, code, None, seed=0, spectate=True),
            Player(server.ws_url, code, tokens[0], seed=0, spectate=True),  # the host, watching
            Player(server.ws_url, code, elsewhere[0], seed=0),  # no seat here: a spectator
        ]
        await start(server, code, tokens[0])
        returns = asyncio.create_task(watch_and_come_back(server, code, watchers[0]))
        async with asyncio.timeout(40):
            await asyncio.gather(*(p.play(tap_rate=0.3) for p in players + watchers))
        returning = await returns

    record = await store.find_by_code(code)
    assert record is not None
    seeds = {record.seed, match_seed(record.seed, 1)}
    played = [f for f in players[0].frames if f["type"] == "event"]
    assert any(e["type"].startswith("tap_") for f in played for e in f["events"]), "no TAP"
    assert any("seen" in e for f in played for e in f["events"]), "the seats saw cards"
    for watcher in watchers:
        assert watcher.seat is None
        assert check_public(watcher.frames, seeds) > 20
        await replay_check(store, code, watcher.frames)
    # The three kinds of spectator are one audience: they received the same views. They
    # connected at their own moments after the start (each began with a snapshot of its own
    # moment), so the views are compared seq by seq, over the events all three received.
    views = [{f["seq"]: f["view"] for f in w.frames if f["type"] == "event"} for w in watchers]
    common = set(views[0]) & set(views[1]) & set(views[2])
    assert len(common) > 20
    for seq in sorted(common):
        assert views[0][seq] == views[1][seq] == views[2][seq], seq
    check_public(returning, seeds)
    await replay_check(store, code, returning)


@pytest.mark.anyio
async def test_a_spectator_cannot_see_a_drawn_card_but_its_seat_can(tmp_path: Path) -> None:
    settings = ServerSettings(
        data_dir=tmp_path, secret="spectators", rate=1e6, clients=NO_ADDRESS_LIMITS, burst=1e6
    )
    with run_server(settings, MemoryStore()) as server:
        code, tokens = create_table(server, "cabo", 2, peek_seconds=600, turn_seconds=3600)
        async with client(server) as a, client(server) as b, client(server) as watcher:
            await a.hello(code, tokens[0])
            await b.hello(code, tokens[1])
            await watcher.hello(code)
            for c in (a, b, watcher):
                await c.settle()
            await a.send({"type": "start"})
            for c in (a, b, watcher):
                await c.until("event")
            for seat in (a, b):  # the opening peeks
                peek = next(x for x in seat.legal if x["do"] == "opening_peek")
                ack = await seat.act({"do": "opening_peek", "slots": peek["slots"]})
                assert applied(ack)
                for c in (a, b, watcher):
                    await c.until_seq(ack["seq"])
            mover = a if a.view["to_act"] == 0 else b
            ack = await mover.act({"do": "draw"})
            await watcher.until_seq(ack["seq"])
            drew = [f for f in mover.frames if f["type"] == "event"][-1]
            assert drew["view"]["held"] is not None  # the drawer sees its card
            assert drew["events"][0]["seen"] == [drew["view"]["held"]]
            assert watcher.view["phase"] == "holding"
            assert watcher.view["held"] is None
            assert "seen" not in watcher.frames[-1]["events"][0]
            assert not (keys(watcher.frames) & SECRET_KEYS)
            assert not [f for f in watcher.frames if f["type"] == "error"]
