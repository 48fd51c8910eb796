"""Issue 34 §2 through a real server: a ranked sudden-death round is played by the seats tied
for the lowest total alone (the others watch: no cards, no legal action, and their lower total
does not win), the places and ratings follow the engine's; and a seat that forfeits is never a
winner, whatever its total.

As in test_ranked_rounds.py, the deals are known in advance (the seed hook) and every human seat
follows one fixed policy, so the engine plays the same match here as on the server; the seed
was found by playing that policy over seeds from 1 with three players (538 since the match
seeds are 128 bits; a single winner of the sudden death, not a second tie).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import Client, RunningServer, applied, client, run_server, seated
from ..ranked_helpers import account, matched, queue, ranked_settings
from .test_ranked_rounds import policy, result_of, simulated

PRESET = "kivo"
TWO_OF_THREE_SEED = 538  # seats 0 and 1 tied after three rounds, seat 2 lower after the fourth
GRACE = 1.0


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    table = TableConfig(bot_delay=0.0, reveal_seconds=600.0, grace_seconds=GRACE)
    with run_server(ranked_settings(tmp_path, test_hooks=True, table=table), store) as running:
        yield running


def test_only_the_tied_play_the_sudden_death_round(
    server: RunningServer, store: MemoryStore
) -> None:
    expected = simulated(TWO_OF_THREE_SEED, PRESET, 3)
    assert expected.round_no == 4, "the seed no longer ties after three rounds: search again"
    assert expected.sudden_seats() == (0, 1), "the seed's tie moved: search again"
    assert expected.totals[2] < min(expected.totals[:2]), "the watcher is no longer lowest"
    watched: list[dict[str, Any]] = []  # the watcher's view and legal actions in round 4

    with account(server, "Ann") as ann, account(server, "Bob") as bob, account(server, "Cyd") as cy:
        queue(ann, PRESET, 3, seed=TWO_OF_THREE_SEED)
        queue(bob, PRESET, 3)
        queue(cy, PRESET, 3)
        status = [matched(h) for h in (ann, bob, cy)]
        tokens = [t for _, t in sorted((s["seat"], s["token"]) for s in status)]

        async def play() -> dict[str, Any]:
            async with seated(server, status[0]["code"], tokens) as clients:
                for _ in range(3000):
                    view = clients[0].view
                    if view.get("phase") == "match_over":
                        return view
                    if view.get("round") == 4:
                        watched.append({"view": clients[2].view, "legal": clients[2].legal})
                    action = policy([c.legal for c in clients])
                    ack = await clients[action["by"]].act(
                        {k: v for k, v in action.items() if k != "by"}
                    )
                    assert applied(ack), ack
                    for c in clients:
                        await c.until_seq(ack["seq"])
                raise AssertionError("the match did not end")

        view = asyncio.run(asyncio.wait_for(play(), 120))

    assert view["round"] == 4
    assert list(view["totals"]) == list(expected.totals)
    assert list(view["winners"]) == [0]  # not seat 2, whose total is lower
    assert watched, "no round 4 was seen"
    for seen in watched:
        assert seen["view"]["sudden_death"] == [0, 1]
        assert seen["legal"] == []  # the watcher can do nothing in the round
        assert not any(seen["view"]["hands"][2])  # and holds no card
    result = result_of(store)
    places = {s["seat"]: s["place"] for s in result["seats"]}
    assert places == {0: 1, 1: 2, 2: 3}
    assert result["winners"] == [0]
    after = {s["seat"]: s["after"] for s in result["seats"]}
    assert after[0] > after[1] > after[2]


def test_a_forfeiter_with_the_lowest_total_is_no_winner(
    server: RunningServer, store: MemoryStore
) -> None:
    # Seat 0 is dealt the lowest hand of round 1 by far and forfeits at once; a stand-in plays
    # it.  The others call whenever they may, so their high hands stay high.
    deal = {
        "hands": [["0", "0", "1", "1"], ["13", "13", "12", "12"], ["12", "12", "11", "11"]],
        "discard": "5",
        "first": 1,
    }
    with account(server, "Ann") as ann, account(server, "Bob") as bob, account(server, "Cyd") as cy:
        queue(ann, PRESET, 3, seed=7, deal=deal)
        queue(bob, PRESET, 3)
        queue(cy, PRESET, 3)
        https = {"Ann": ann, "Bob": bob, "Cyd": cy}
        status = {name: matched(h) for name, h in https.items()}
        by_seat = {s["seat"]: (name, s["token"]) for name, s in status.items()}
        code = status["Ann"]["code"]
        leaver = by_seat[0][0]
        watcher = https[by_seat[1][0]]

        async def play() -> dict[str, Any]:
            async with seated(server, code, [by_seat[1][1], by_seat[2][1]]) as ours:
                async with client(server) as gone:  # seat 0 looks in, and is gone
                    await gone.hello(code, by_seat[0][1])
                end = time.monotonic() + 20 * GRACE
                while 0 not in info(watcher, code)["settings"].get("forfeits", []):
                    assert time.monotonic() < end, f"{leaver} never forfeited"
                    await asyncio.sleep(0.05)
                return await play_ours(ours)

        view = asyncio.run(asyncio.wait_for(play(), 180))
        # The replay of the match says the same (a player's own replay, signed in).
        table_id = next(t.id for t in store._tables.values() if t.code == code)
        replayed = watcher.get(f"/api/replays/{table_id}/1")
        assert replayed.status_code == 200, replayed.text
        assert replayed.json()["winners"]
        assert 0 not in replayed.json()["winners"]

    totals = list(view["totals"])
    assert totals[0] < min(totals[1:]), f"the forfeiter is not lowest: {totals}"
    # What the table itself says at the end, in the view every seat gets: not the forfeiter.
    assert view["winners"]
    assert 0 not in view["winners"]
    result = result_of(store)
    assert result["forfeits"] == [0]
    assert 0 not in result["winners"]
    assert result["winners"]
    assert set(result["winners"]) <= {1, 2}
    places = {s["seat"]: s["place"] for s in result["seats"]}
    assert places[0] == 3
    assert all(places[s] < 3 for s in (1, 2))
    after = {s["seat"]: s["after"] for s in result["seats"]}
    assert all(after[0] < after[s] for s in (1, 2))


def info(http: httpx.Client, code: str) -> dict[str, Any]:
    answer: dict[str, Any] = http.get(f"/api/tables/{code}").json()
    return answer


async def play_ours(clients: list[Client]) -> dict[str, Any]:
    """The policy for our seats until the match is over; the stand-in plays seat 0."""
    for _ in range(5000):
        for c in clients:
            await c.settle()
        top = max(c.seq for c in clients)
        for c in clients:
            await c.until_seq(top)
        if clients[0].view.get("phase") == "match_over":
            return clients[0].view
        legal = [[a for a in c.legal if a["do"] != "tap"] for c in clients]
        if not any(legal):
            await clients[0].recv(10.0)  # the stand-in's move
            continue
        action = policy(legal)
        actor = next(c for c in clients if c.seat == action["by"])
        await actor.act({k: v for k, v in action.items() if k != "by"})  # ack, or stale
    raise AssertionError("the match did not end")
