"""Strength: hard beats random by a wide margin (seeded, 300 two-player cabo rounds)."""

from __future__ import annotations

from facedown.bots import make_bot, play_round
from facedown.engine import PRESETS, Game


def test_hard_beats_random_by_a_wide_margin() -> None:
    rounds = 300
    wins = 0.0
    scores = [0, 0]  # hard, random
    for r in range(rounds):
        hard_seat = r % 2  # both seats, both starting positions
        bots = [make_bot("random", r), make_bot("random", r)]
        bots[hard_seat] = make_bot("hard", r)
        result = play_round(Game(PRESETS["cabo"], 2, seed=r // 2), bots)
        mine, theirs = result.round_scores[hard_seat], result.round_scores[1 - hard_seat]
        scores[0] += mine
        scores[1] += theirs
        wins += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    assert wins / rounds > 0.7
    assert (scores[1] - scores[0]) / rounds > 10
