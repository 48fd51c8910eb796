"""No memory aid through the protocol: the reconnect attack, against the real server.

A script that says ``hello`` again with an old ``last_seq`` (0, 1, anything) before every
decision would have a perfect memory if the catch-up carried the seat's past private cards
again.  For every preset and every mode (Live Private, Ranked and pass-and-play, which have no
Recollection, and turn-based, which always has it: there the view's knowledge is the aid), a
round is played from a stacked deal through the moments that show a seat a card (the opening
look, a drawn card, a peek, a spy), and after every move each seat reconnects with every
``last_seq`` from 0 to the table's seq: no frame it receives may carry a card face that its
current view does not show.  At a peek and a spy the seat also says its moment is over
(``ready``): from then on no frame, on a reconnect or on its other device, holds the card.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import Client, RunningServer, applied, client, run_server, seated
from ..ranked_helpers import account, matched, queue, ranked_settings

PRESETS = ("boyo", "cabo", "kivo", "kaboom")
MODES = ("live", "ranked", "pass_and_play", "turn_based")
# A round's moments in the order the script plays them; a swap is skipped, nobody calls or taps.
ORDER = ("opening_peek", "peek", "spy", "draw", "discard", "end_turn", "skip", "next_round")
MOVES = 14  # the opening looks and three turns of each seat: a draw, a peek, a spy each
MOMENTS = ("peek", "spy")  # after these the seat says its moment is over

# Every seat's hand holds cards found nowhere else in the deal, so a face can be traced.
DEALS: dict[str, dict[str, Any]] = {
    "boyo": {
        "hands": [["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"]],
        "discard": "6C",
        "draw": ["7S", "9S", "8S", "10S", "7C", "9C", "JS", "QS"],
        "first": 0,
    },
    "zero_to_thirteen": {
        "hands": [["0", "1", "2", "3"], ["4", "5", "6", "13"]],
        "discard": "11",
        "draw": ["7", "9", "8", "10", "7", "9", "12", "12"],
        "first": 0,
    },
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def deal_for(preset: str) -> dict[str, Any]:
    return DEALS["boyo" if preset == "boyo" else "zero_to_thirteen"]


def private_faces(frame: dict[str, Any]) -> set[str]:
    """Every card face in a frame that is not public: cards seen in events, the cards the view
    shows the seat, the card it holds, what it knows."""
    faces: set[str] = set()
    for event in frame.get("events", []):
        faces |= {name for name in event.get("seen", []) if name is not None}
    view = frame.get("view")
    if view is not None:
        faces |= set(view["shown"].values())
        if view["held"] is not None:
            faces.add(view["held"])
        faces |= set((view["knowledge"] or {}).values())
    return faces


async def catch_up(server: RunningServer, code: str, token: str, last_seq: int) -> list[Any]:
    async with client(server) as c:
        return await c.hello(code, token, last_seq=last_seq)


async def reconnect_attack(
    server: RunningServer, code: str, token: str, seq: int, live: dict[str, Any]
) -> int:
    """The seat reconnects with every last_seq from 0 to ``seq``; every frame is checked
    against the seat's current view (``live``: the view its own device was last sent).
    Returns how many frames were checked."""
    async with client(server) as fresh:
        frames = await fresh.hello(code, token)
    current = frames[-1]
    assert current["seq"] == seq
    assert current["view"] == live, "a fresh snapshot differs from what the seat was sent"
    allowed = private_faces(current)
    checked = 0
    for last_seq in range(seq + 1):
        for frame in await catch_up(server, code, token, last_seq):
            extra = private_faces(frame) - allowed
            assert not extra, (
                f"hello with last_seq {last_seq} at seq {seq}: {frame['type']} carries {extra}, "
                f"which the seat's current view does not show"
            )
            checked += 1
    return checked


def next_move(seats: list[Client]) -> tuple[Client, dict[str, Any]]:
    for kind in ORDER:
        for c in seats:
            for action in c.legal:
                if action["do"] == kind:
                    return c, {k: v for k, v in action.items() if k != "by"}
    raise AssertionError(f"no move for the script: {[c.legal for c in seats]}")


# ---------------------------------------------------------------- a table of each mode
def live_table(server: RunningServer, preset: str, extra: dict[str, Any]) -> list[str]:
    with server.http() as http:
        body = {"preset": preset, "seats": 2, "name": "Ann", "deal": deal_for(preset), "seed": 3}
        r = http.post("/api/tables", json={**body, **extra})
        assert r.status_code == 200, r.text
        code, host = r.json()["code"], r.json()["token"]
        r = http.post(f"/api/tables/{code}/join", json={"name": "Bob"})
        assert r.status_code == 200, r.text
        return [code, host, r.json()["token"]]


def pass_and_play_table(server: RunningServer, preset: str) -> list[str]:
    with server.http() as http:
        body = {"preset": preset, "names": ["Maya", "Bo"], "deal": deal_for(preset), "seed": 3}
        r = http.post("/api/tables/pass-and-play", json=body)
        assert r.status_code == 200, r.text
        return [r.json()["code"], *(s["token"] for s in r.json()["seats"])]


def ranked_table(server: RunningServer, preset: str, n: int) -> list[str]:
    with account(server, f"Ann{preset}{n}") as ann, account(server, f"Bob{preset}{n}") as bob:
        queue(ann, preset, 2, seed=3, deal=deal_for(preset))
        queue(bob, preset, 2)
        a, b = matched(ann), matched(bob)
        by_seat = sorted([(a["seat"], a["token"]), (b["seat"], b["token"])])
        return [a["code"], *(token for _, token in by_seat)]


@contextlib.asynccontextmanager
async def table_of(
    server: RunningServer, mode: str, preset: str, n: int
) -> AsyncIterator[tuple[str, list[str], list[Client], list[Client]]]:
    """A started table of ``mode``: its code, the seats' tokens, a connection for each seat,
    and a second device of each seat."""
    slow = {"peek_seconds": 600, "turn_seconds": 3600}
    if mode == "live":
        code, *tokens = live_table(server, preset, slow)
    elif mode == "turn_based":
        code, *tokens = live_table(server, preset, {"mode": "turn_based"})
    elif mode == "pass_and_play":
        code, *tokens = pass_and_play_table(server, preset)
    else:
        code, *tokens = await asyncio.to_thread(ranked_table, server, preset, n)
    async with seated(server, code, tokens + tokens) as clients:
        seats, twins = clients[:2], clients[2:]
        if clients[0].table["status"] == "lobby":
            await clients[0].send({"type": "start"})
            for c in clients:
                await c.until("event")
                await c.settle()
        yield code, tokens, seats, twins


async def in_step(clients: list[Client], seq: int) -> None:
    for c in clients:
        await c.until_seq(seq)
        await c.settle()


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_a_reconnect_with_any_last_seq_brings_back_no_card(
    tmp_path: Path, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # everything the server writes to its logs, kept here
    table = TableConfig(bot_delay=0.0, reveal_seconds=600.0)
    settings = ranked_settings(tmp_path, test_hooks=True, table=table)
    with run_server(settings, MemoryStore()) as server:
        for n, preset in enumerate(PRESETS):
            async with table_of(server, mode, preset, n) as (code, tokens, seats, twins):
                everyone = seats + twins
                # Turn-based tables always have Recollection (docs/turn-based.md): there the
                # view's knowledge is the aid, and a catch-up may bring back nothing else.
                recollection = seats[0].view["knowledge"] is not None
                assert recollection == (mode == "turn_based")
                kinds: list[str] = []
                checked = 0
                for _ in range(MOVES):
                    actor, action = next_move(seats)
                    answer = await actor.act(action)
                    assert applied(answer), answer
                    await in_step(everyone, answer["seq"])
                    kinds.append(action["do"])
                    assert actor.seat is not None
                    if action["do"] in MOMENTS:
                        assert actor.view["shown"], "the moment shows the seat no card"
                    for c in seats:  # the moment is still on: the seat may see its card
                        assert c.seat is not None
                        live = c.view
                        checked += await reconnect_attack(server, code, tokens[c.seat], c.seq, live)
                        await in_step(everyone, answer["seq"])  # read what the visits caused
                    if action["do"] in MOMENTS:
                        # The seat says its moment is over: its other device is told, and no
                        # reconnect brings the card back.
                        twin = twins[actor.seat]
                        await actor.send({"type": "ready"})
                        ack = await actor.until("ack")
                        assert ack["seq"] == answer["seq"]
                        over = await twin.until("snapshot")
                        assert over["seq"] == answer["seq"]
                        assert over["view"]["shown"] == {}
                        await in_step([actor, twin], answer["seq"])
                        assert actor.view["shown"] == {}
                        checked += await reconnect_attack(
                            server, code, tokens[actor.seat], actor.seq, actor.view
                        )
                        await in_step(everyone, answer["seq"])
                # The round went through every kind of moment.
                for kind in ("opening_peek", "draw", "peek", "spy"):
                    assert kind in kinds, (preset, mode, kinds)
                assert checked > MOVES * 20
    # Nor do the server's logs (Facedown's and uvicorn's, at every level) hold a card: Boyo's
    # names are unique ("4S"), so any is one.
    written = "\n".join(
        caplog.handler.format(r)
        for r in caplog.records
        if r.name.split(".")[0] in ("facedown", "uvicorn")
    )
    boyo = DEALS["boyo"]
    for name in {n for hand in boyo["hands"] for n in hand} | set(boyo["draw"]):
        assert not re.search(rf"\b{name}\b", written), f"{name} in the server's log"
