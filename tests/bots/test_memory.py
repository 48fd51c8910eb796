"""What bots remember: perfect recall for hard, forgetting for easy and medium, the discard pile,
and own cards that someone swapped away."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from facedown.bots import HeuristicBot, SeatInfo, make_bot, seat_info
from facedown.bots.driver import next_action
from facedown.bots.memory import Memory, parse_place
from facedown.engine import PRESETS, Action, Game, view
from facedown.engine import actions as A

CABO = PRESETS["cabo"]


def info(knowledge: dict[str, str], **changes: Any) -> SeatInfo:
    """A hand-made SeatInfo for seat 0 of a 2-player cabo round (Memory reads the round, the
    hands, the piles and the knowledge)."""
    start = view(Game(CABO, 2, 0), 0)
    fields: dict[str, Any] = {
        "round": 1,
        "hands": ((True,) * 4, (True,) * 4),
        "draw_size": 40,
        "discard_size": 1,
        "top_discard": "9",
        "knowledge": knowledge,
    }
    fields.update(changes)
    for key in ("hands",):
        fields[key] = tuple(tuple(h) for h in fields[key])
    return SeatInfo(0, dataclasses.replace(start, **fields), (), 0, (), CABO)


def test_memory_copies_knowledge_and_forgets_at_the_given_rate() -> None:
    memory = Memory(forget=0.0)
    memory.observe(info({"0:0": "3", "1:2": "11"}))
    assert memory.known == {(0, 0): "3", (1, 2): "11"}
    memory.forget_some()
    assert len(memory.known) == 2  # forget=0: perfect recall
    total = Memory(forget=1.0, rng=random.Random(1))
    total.observe(info({"0:0": "3", "1:2": "11"}))
    total.forget_some()
    assert total.known == {}


def test_a_forgotten_card_stays_forgotten_until_looked_at_again() -> None:
    memory = Memory(forget=1.0, rng=random.Random(1))
    memory.observe(info({"0:0": "3"}))
    memory.forget_some()
    memory.observe(info({"0:0": "3"}))  # the engine still says the seat knows it
    assert memory.known == {}
    memory.observe(info({"0:0": "3", "0:1": "5"}))  # something newly learned is remembered
    assert memory.known == {(0, 1): "5"}
    memory.look_again((0, 0))  # a peek at the forgotten place
    memory.observe(info({"0:0": "3", "0:1": "5"}))
    assert memory.known == {(0, 0): "3", (0, 1): "5"}


def test_a_new_round_starts_with_an_empty_memory() -> None:
    memory = Memory()
    memory.observe(info({"0:0": "3"}, discard_size=3, top_discard="4"))
    memory.observe(info({}, round=2))
    assert memory.known == {}
    assert memory.seen_pile() == ["9"]


def test_the_discard_pile_is_followed_and_forgotten_when_reshuffled() -> None:
    memory = Memory()
    memory.observe(info({}, discard_size=1, top_discard="9", draw_size=40))
    memory.observe(info({}, discard_size=2, top_discard="4", draw_size=39))
    memory.observe(info({}, discard_size=4, top_discard="12", draw_size=37))
    assert memory.pile == ["9", "4", None, "12"]
    memory.observe(info({"1:0": "12"}, discard_size=3, top_discard=None, draw_size=37))
    assert memory.seen_pile() == ["9", "4"]  # the 12 was taken (it is public in a hand now)
    memory.observe(info({}, discard_size=1, top_discard="6", draw_size=35))
    assert memory.seen_pile() == ["6"]
    memory.observe(info({}, discard_size=2, top_discard="7", draw_size=0))
    memory.observe(info({}, discard_size=1, top_discard="3", draw_size=30))  # reshuffled
    assert memory.seen_pile() == ["3"]


def test_an_own_card_swapped_away_makes_its_place_suspect() -> None:
    memory = Memory()
    memory.observe(info({"0:1": "2"}))
    memory.observe(info({"1:3": "2"}))  # someone swapped our 2 into their hand
    assert memory.suspect == {(0, 1)}
    memory.observe(info({"1:3": "2", "0:1": "12"}))  # we looked: no longer a guess
    assert memory.suspect == set()
    own = Memory()
    own.observe(info({"0:2": "9"}))
    own.last_action = Action(0, A.SWAP, (2,), 1, 0)
    own.observe(info({"1:0": "9"}))  # our own swap: we know what we took
    assert own.suspect == set()


def remembered_share(level: str, rounds: int = 12) -> float:
    """The share of what the engine says a seat knows that the bot still remembers."""
    remembered = known = 0
    for r in range(rounds):
        game = Game(CABO, 2, 300 + r)
        bots = [make_bot(level, 2 * r), make_bot(level, 2 * r + 1)]
        while not game.is_round_over:
            action = next_action(game, bots)
            bot = bots[action.player]
            assert isinstance(bot, HeuristicBot)
            knowledge = {
                parse_place(p): n for p, n in seat_info(game, action.player).knowledge.items()
            }
            assert all(knowledge.get(p) == n for p, n in bot.memory.known.items())
            remembered += len(bot.memory.known)
            known += len(knowledge)
            game.apply(action)
    return remembered / known


def test_hard_remembers_everything_easy_forgets_more_than_medium() -> None:
    hard, medium, easy = (remembered_share(level) for level in ("hard", "medium", "easy"))
    assert hard == pytest.approx(1.0)
    assert easy < medium < hard
    assert easy < 0.9


def test_turns_and_memory_start_afresh_each_round() -> None:
    game = Game(CABO, 2, 7)
    bots = [make_bot("hard", 1), make_bot("hard", 2)]
    for _ in range(2):
        while not game.is_round_over:
            game.apply(next_action(game, bots))
        game.apply(next_action(game, bots))  # next_round
    while not game.is_round_over and game.to_act is None:
        game.apply(next_action(game, bots))  # the opening peeks
    bot = bots[game.turn]
    assert isinstance(bot, HeuristicBot)
    bot.choose(seat_info(game, game.turn))
    assert bot.turns == 1
    assert bot.memory.round == 3
