"""The paper scoreboard scores as the engine's own rounds do: whole random matches of every
preset, replayed as paper rounds (hand totals, caller, moon), give the same round scores,
totals, end and winners; and what does not fit a board is refused."""

from __future__ import annotations

import random

import pytest

from facedown.engine import (
    PRESETS,
    Game,
    PaperRound,
    Placement,
    TallyError,
    make_ruleset,
    tally,
)

MOON = "shot_the_moon"  # the reason a round result gives the player who shot the moon


def random_match(preset: str, players: int, seed: int) -> Game:
    rules = make_ruleset(preset, {"rounds": 3} if PRESETS[preset].rounds else {"score_limit": 40})
    game = Game(rules, players, seed)
    rng = random.Random(seed)
    for _ in range(50_000):
        if game.is_match_over:
            return game
        game.apply(rng.choice(game.all_legal_actions()))
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", range(6))
def test_paper_rounds_score_as_the_engine_does(preset: str, seed: int) -> None:
    players = 2 + seed % 3
    game = random_match(preset, players, seed)
    papers = [
        PaperRound(
            r.hand_totals,
            r.caller,
            next((p for p, why in enumerate(r.reasons) if MOON in why), -1),
        )
        for r in game.history
    ]
    board = tally(game.rules, players, papers)
    assert [r.round_scores for r in board.rounds] == [r.round_scores for r in game.history]
    assert [r.totals for r in board.rounds] == [r.totals for r in game.history]
    assert board.over
    assert board.winners == tuple(game.winners)


def test_a_board_that_does_not_fit_is_refused() -> None:
    kivo, cabo = make_ruleset("kivo"), make_ruleset("cabo")
    with pytest.raises(TallyError, match="2 to 8 players"):
        tally(kivo, 1, [])
    with pytest.raises(TallyError, match="2 to 8 players"):
        tally(kivo, 9, [])
    with pytest.raises(TallyError, match="points for each of the 3 places"):
        tally(kivo, 3, [], Placement((3, 1), 2))
    with pytest.raises(TallyError, match="placement rounds"):
        tally(kivo, 2, [], Placement((3, 1), 0))
    with pytest.raises(TallyError, match="a place's points"):
        tally(kivo, 2, [], Placement((3, 1001), 2))
    with pytest.raises(TallyError, match="a hand total must be"):
        tally(kivo, 2, [PaperRound((1000, 3))])
    with pytest.raises(TallyError, match="the caller must be"):
        tally(kivo, 2, [PaperRound((1, 3), caller=2)])
    with pytest.raises(TallyError, match="the moon must be"):
        tally(cabo, 2, [PaperRound((1, 3), moon=-2)])
    with pytest.raises(TallyError, match="kivo has no shooting the moon"):
        tally(kivo, 2, [PaperRound((50, 3), moon=0)])
