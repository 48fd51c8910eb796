"""The heuristic levels' ladder, in small: in 2-player cabo and boyo rounds, each of easy,
medium and hard beats the level below outside the 95% interval (the whole ladder:
benchmarks/ladder.py and docs/bots.md)."""

from __future__ import annotations

import pytest

from facedown.sim import SimConfig, run, wilson

STEPS = [("easy", "random"), ("medium", "easy"), ("hard", "medium")]


@pytest.mark.parametrize("preset", ["cabo", "boyo"])
@pytest.mark.parametrize(("upper", "lower"), STEPS)
def test_each_heuristic_level_beats_the_one_below(preset: str, upper: str, lower: str) -> None:
    rounds = 600
    results = run(SimConfig(preset, 2, (upper, lower), rounds, seed=7, unit="round"))
    share = sum(s.share for game in results for s in game.seats if s.bot == upper)
    low, _ = wilson(share, rounds)
    assert low > 0.5, f"{upper} took {share / rounds:.1%} of the wins against {lower}"
