"""The heuristic levels' ladder, in small: in 2-player cabo and boyo rounds, each of easy,
medium and hard beats the level below outside the 95% interval (the whole ladder:
benchmarks/ladder.py and docs/bots.md)."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from facedown.sim import SimConfig, mean_interval, run, wilson

STEPS = [("easy", "random"), ("medium", "easy"), ("hard", "medium")]


@pytest.mark.parametrize("preset", ["cabo", "boyo"])
@pytest.mark.parametrize(("upper", "lower"), STEPS)
def test_each_heuristic_level_beats_the_one_below(preset: str, upper: str, lower: str) -> None:
    rounds = 600
    results = run(SimConfig(preset, 2, (upper, lower), rounds, seed=7, unit="round"))
    share = sum(s.share for game in results for s in game.seats if s.bot == upper)
    low, _ = wilson(share, rounds)
    assert low > 0.5, f"{upper} took {share / rounds:.1%} of the wins against {lower}"


def _benchmark(name: str) -> ModuleType:
    """A script of benchmarks/, imported as a module."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"facedown_benchmark_{name}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_ladder_benchmark_reports_share_and_score_difference() -> None:
    ladder = _benchmark("ladder")
    step = ladder.measure("kivo", 4, "hard", "random", 40, seed=3, jobs=1)
    # The interval of the per-round score difference is centred on the two sides' mean scores.
    centre = (step.diff_low + step.diff_high) / 2
    assert centre == pytest.approx(step.upper_score - step.lower_score)
    assert step.diff_high < 0 < step.low - 0.5  # hard scores lower and wins more than random
    line = ladder.row(step)
    assert f"[{step.diff_low:+.2f}, {step.diff_high:+.2f}]" in line
    assert line.count("|") == ladder.HEADER.splitlines()[0].count("|")


def test_the_ladder_plays_duplicate_deals_and_takes_the_deal_as_its_unit() -> None:
    ladder = _benchmark("ladder")
    alike = ("tests.sim.sample_bots:Steady", "tests.sim.sample_bots:SteadyToo")
    even = ladder.measure("kivo", 2, *alike, 41, seed=3, jobs=1)
    assert even.rounds == 40  # whole deals: each played once from each seat
    # Two sides that play alike come out even on every deal.
    assert (even.diff_low, even.diff_high) == (0.0, 0.0)
    assert even.share == even.low == even.high == 0.5
    apart = ladder.measure("kivo", 2, *alike, 40, seed=3, jobs=1, duplicate=False)
    assert apart.diff_low < apart.diff_high
    assert apart.low < 0.5 < apart.high


def test_a_step_holds_only_when_the_upper_level_wins_more_and_scores_lower() -> None:
    ladder = _benchmark("ladder")

    def step(low: float, diff_high: float) -> Any:
        return ladder.Step(
            "kivo",
            2,
            "expert",
            "hard",
            600,
            0.55,
            low,
            0.6,
            9.4,
            9.1,
            diff_high - 1.0,
            diff_high,
            1.0,
        )

    assert step(0.51, -0.1).holds
    early_caller = step(0.506, 0.9)  # more round wins, worse scores: calls too early
    assert not early_caller.holds
    assert "scores no lower" in ladder.row(early_caller)
    assert not step(0.45, -0.2).holds
    assert "wins no more" in ladder.row(step(0.45, -0.2))


def test_the_match_ladder_counts_whole_matches_as_the_engine_ends_them() -> None:
    ladder = _benchmark("ladder")
    step = ladder.measure_matches("cabo", 2, "easy", "random", 9, seed=3, jobs=1)
    assert step.matches == 8  # whole deals: each played once from each seat
    # The same tournament, read here game by game: the step's figures are its bookkeeping.
    config = SimConfig("cabo", 2, ("easy", "random"), 8, seed=3, unit="match", duplicate=True)
    games = run(config)
    shares = []
    for game in games:
        totals = [s.total for s in game.seats]
        assert max(totals) > 100  # a cabo match ends when a total passes 100
        assert game.winners == tuple(s for s in range(2) if totals[s] == min(totals))
        shares.append(sum(s.share for s in game.seats if s.bot == "easy"))
    deal_shares = [(shares[k] + shares[k + 1]) / 2 for k in range(0, 8, 2)]
    assert (step.won, step.shared, step.lost) == (
        shares.count(1.0),
        sum(0 < v < 1 for v in shares),
        shares.count(0.0),
    )
    assert step.share == pytest.approx(sum(shares) / 8)
    assert step.rounds == pytest.approx(sum(g.rounds for g in games) / 8)
    assert step.rounds > 1
    # The interval takes the deal as its unit: four deals here.
    assert (step.low, step.high) == pytest.approx(ladder.share_interval(deal_shares))
    line = ladder.match_row(step)
    assert "| cabo | a total past 100 | 2 | easy > random | 8 |" in line
    assert f"{step.won} / {step.shared} / {step.lost}" in line
    assert line.count("|") == ladder.MATCH_HEADER.splitlines()[0].count("|")


def test_the_match_share_interval_is_normal_over_deals_and_wilson_when_all_alike() -> None:
    ladder = _benchmark("ladder")
    means = [1.0, 0.5, 0.75, 1.0, 0.25, 1.0]
    _, low, high = mean_interval(means)
    assert ladder.share_interval(means) == pytest.approx((low, min(1.0, high)))
    assert high > 1.0  # clipped to a share
    # One side won every match: the normal interval would be the point 100%.
    assert ladder.share_interval([1.0] * 6) == wilson(6, 6)
    low, high = ladder.share_interval([1.0] * 6)
    assert 0.5 < low < high == 1.0


def test_the_match_ladder_plays_duplicate_matches_and_kivo_for_three_rounds() -> None:
    ladder = _benchmark("ladder")
    alike = ("tests.sim.sample_bots:Steady", "tests.sim.sample_bots:SteadyToo")
    even = ladder.measure_matches("kivo", 4, *alike, 8, seed=5, jobs=1)
    assert even.rounds == 3.0
    # Two sides that play alike meet the same cards from every seat: every deal comes out even.
    assert even.share == 0.5
    assert even.won == even.lost
    assert even.low < 0.5 < even.high
    assert not even.holds
    assert ladder.match_length("kivo") == ladder.match_length("boyo") == "3 rounds"
    assert ladder.match_length("kaboom") == "a total past 100"


def test_the_match_ladder_runs_from_the_command_line(tmp_path: Path) -> None:
    ladder = _benchmark("ladder")
    out = tmp_path / "matches.md"
    argv = ["--matches", "4", "--presets", "kivo", "--players", "2", "--steps", "easy"]
    ladder.main([*argv, "--jobs", "1", "--markdown", str(out)])
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ladder.MATCH_HEADER.splitlines()
    assert lines[2].startswith("| kivo | 3 rounds | 2 | easy > random | 4 |")
    assert lines[-1].endswith("steps hold (expert: `expert(budget_ms=0, iterations=24)`, seed 1).")


def test_the_sampler_bias_benchmark_compares_sampled_and_real_opponent_hands() -> None:
    errors = _benchmark("sampler_bias").errors_by_turn("kivo", 3, rounds=3, samples=4, seed=2)
    assert errors
    assert all(turn >= 1 for turn in errors)
    # Every turn start of the expert compares both opponents once.
    assert all(len(values) % 2 == 0 for values in errors.values())
    # Errors are hand totals of a 0-13 deck: four cards differ by at most 52 points.
    assert all(abs(v) <= 52 for values in errors.values() for v in values)


def test_the_departures_benchmark_finds_the_experts_own_choices_and_prices_them() -> None:
    departures = _benchmark("departures")
    found = departures.find_departures("cabo", 2, rounds=4, seed=1)
    assert found
    for d in found:
        assert d.default != d.chosen
        assert d.game.is_legal(d.default)
        assert d.game.is_legal(d.chosen)
        assert d.kind.startswith(d.phase + ": ")
    # Both continuations meet the same randomness: a departure to the same action is worth 0.
    same = dataclasses.replace(found[0], chosen=found[0].default)
    assert departures.worth(same, 3, seed=2) == 0.0
    # The continuations are played by the table's own bots, with what they remembered.
    assert all(bot.memory.known or bot.memory.pile for bot in found[0].bots)
    assert abs(departures.worth(found[0], 2, seed=2)) < 200
