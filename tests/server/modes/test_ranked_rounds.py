"""The ranked format through the server: three rounds, a sudden-death round when the lowest
totals are tied, and a draw when they are tied again; and how each is rated.

The deals are known in advance with the test hooks: the queue takes the seed of the next match's
table, and both players follow one fixed policy (call whenever the rules allow, otherwise the
harmless move), so the engine plays the same match here as on the server.  The two seeds were
found by playing that policy over seeds 0 to 2,999 (boyo is the preset where both outcomes came
up); the test checks them with the engine first, so an engine change that moves the deals fails
with a message saying so, not with a wrong ranking.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from facedown.engine import Action, Game, make_ruleset, observe
from facedown.records.matches import match_seed
from facedown.server.modes.ranked_mode import RANKED_OPTIONS
from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import Client, RunningServer, applied, run_server, seated
from ..ranked_helpers import account, matched, queue, ranked_settings

PRESET = "boyo"
SUDDEN_DEATH_SEED = 29  # tied after three rounds; the fourth decides
DRAW_SEED = 64  # tied after three rounds, and tied again after the fourth
PREFER = ("call", "opening_peek", "draw", "discard", "skip", "end_turn", "next_round")


def policy(legal_by_seat: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """The first preferred kind of move any seat may make (seat order): both sides play it."""
    for kind in PREFER:
        for legal in legal_by_seat:
            for action in legal:
                if action["do"] == kind:
                    return action
    raise AssertionError(f"no move to make: {legal_by_seat}")


def simulated(seed: int, preset: str = PRESET, players: int = 2) -> Game:
    """The match the server will deal for a table of this seed, played by the policy."""
    game = Game(make_ruleset(preset, RANKED_OPTIONS), players, match_seed(seed, 1))
    while not game.is_match_over:
        legal = [[a.to_json() for a in observe(game, seat).legal] for seat in range(players)]
        game.apply(Action.from_json(policy(legal)))
    return game


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    # The reveal waits for the players' next_round (no timer plays it for them).
    table = TableConfig(bot_delay=0.0, reveal_seconds=600.0)
    with run_server(ranked_settings(tmp_path, test_hooks=True, table=table), store) as running:
        yield running


async def play_policy(clients: list[Client]) -> None:
    for _ in range(2000):
        if clients[0].view.get("phase") == "match_over":
            return
        action = policy([c.legal for c in clients])
        ack = await clients[action["by"]].act({k: v for k, v in action.items() if k != "by"})
        assert applied(ack), ack
        for c in clients:
            await c.until_seq(ack["seq"])
    raise AssertionError("the match did not end")


def ranked_match(server: RunningServer, seed: int) -> tuple[dict[str, Any], list[str]]:
    """Ann and Bob queue with the seed, play the match by the policy; the last view seen and
    who sat where (their names by seat)."""
    with account(server, "Ann") as ann, account(server, "Bob") as bob:
        queue(ann, PRESET, 2, seed=seed)
        queue(bob, PRESET, 2)
        a, b = matched(ann), matched(bob)
        by_seat = sorted([(a["seat"], a["token"], "Ann"), (b["seat"], b["token"], "Bob")])

        async def play() -> dict[str, Any]:
            async with seated(server, a["code"], [t for _, t, _ in by_seat]) as clients:
                await play_policy(clients)
                return clients[0].view

        view = asyncio.run(asyncio.wait_for(play(), 120))
        return view, [name for _, _, name in by_seat]


def result_of(store: MemoryStore, limit: float = 20.0) -> dict[str, Any]:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        rated = [m for m in store._matches.values() if m.result is not None]
        if rated:
            assert rated[0].result is not None
            return rated[0].result
        time.sleep(0.05)
    raise AssertionError("the match was never rated")


def test_a_tie_after_three_rounds_plays_a_sudden_death_round(
    server: RunningServer, store: MemoryStore
) -> None:
    expected = simulated(SUDDEN_DEATH_SEED)
    assert len(expected.history) == 4, "the seed no longer ties after three rounds: search again"
    assert expected.history[2].totals[0] == expected.history[2].totals[1]
    assert len(expected.winners) == 1, "the seed's sudden death no longer decides: search again"

    view, names = ranked_match(server, SUDDEN_DEATH_SEED)
    assert view["round"] == 4  # three rounds, then the sudden-death round
    assert list(view["totals"]) == list(expected.totals)
    assert list(view["winners"]) == list(expected.winners)
    [winner] = view["winners"]
    result = result_of(store)
    places = {s["seat"]: s["place"] for s in result["seats"]}
    assert places == {winner: 1, 1 - winner: 2}
    ratings = {s["seat"]: s["after"] for s in result["seats"]}
    assert ratings[winner] > ratings[1 - winner]
    assert names[winner] in {"Ann", "Bob"}


def test_a_second_tie_is_a_draw(server: RunningServer, store: MemoryStore) -> None:
    expected = simulated(DRAW_SEED)
    assert len(expected.history) == 4, "the seed no longer ties after three rounds: search again"
    assert expected.totals[0] == expected.totals[1], "the seed no longer ties twice: search again"

    view, _ = ranked_match(server, DRAW_SEED)
    assert view["round"] == 4
    assert view["totals"][0] == view["totals"][1]
    assert sorted(view["winners"]) == [0, 1]  # a shared win: the draw
    result = result_of(store)
    assert [s["place"] for s in result["seats"]] == [1, 1]
    before = {s["before"] for s in result["seats"]}
    after = {s["after"] for s in result["seats"]}
    assert len(before) == 1  # two new players ...
    assert len(after) == 1  # ... drawn: rated alike
