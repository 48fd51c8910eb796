"""Every level returns only legal actions: in random states of every preset and custom table,
asked fresh (no memory of the round) and over whole rounds it plays itself."""

from __future__ import annotations

import pytest

from facedown.bots import LEVELS, Bot, Reactive, make_bot, seat_info
from facedown.bots.driver import play_round
from facedown.engine import Game
from facedown.engine.phases import OPENING, ROUND_OVER

from .tables import RULESETS, random_states

QUICK_EXPERT = {"budget_ms": 0, "iterations": 2}
SEARCHES = ("expert", "learned")  # the levels that search: on a small iteration budget here


def new_bot(level: str, seed: int) -> Bot:
    return make_bot(level, seed, **(QUICK_EXPERT if level in SEARCHES else {}))


def must_act(game: Game, seat: int) -> bool:
    """The seat is the one to move: its turn, its opening peek, or the next round."""
    return game.phase in (OPENING, ROUND_OVER) or game.to_act == seat


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(RULESETS))
def test_fresh_bots_choose_legal_actions_in_random_states(level: str, name: str) -> None:
    rules = RULESETS[name]
    states = 20 if level in SEARCHES else 60
    for players in (2, 3, 5):
        for i, game in enumerate(random_states(rules, players, seed=players, count=states)):
            for seat in range(players):
                legal = game.legal_actions(seat)
                if not legal:
                    continue
                bot = new_bot(level, i)
                info = seat_info(game, seat)
                if must_act(game, seat):
                    assert game.is_legal(bot.choose(info))
                elif isinstance(bot, Reactive):
                    answer = bot.react(info)
                    assert answer is None or game.is_legal(answer)


@pytest.mark.parametrize("name", sorted(RULESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_every_level_plays_whole_rounds(name: str, players: int) -> None:
    # The driver applies every answer: the engine refuses anything illegal.
    rules = RULESETS[name]
    for r in range(3):
        levels = [LEVELS[(r + s) % len(LEVELS)] for s in range(players)]
        game = Game(rules, players, seed=100 * r + players)
        bots = [new_bot(level, s) for s, level in enumerate(levels)]
        assert play_round(game, bots).round_no == 1
        if not game.is_match_over:
            game.apply(bots[game.turn].choose(seat_info(game, game.turn)))  # next_round
            assert play_round(game, bots).round_no == 2
