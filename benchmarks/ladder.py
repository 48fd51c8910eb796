"""The bot ladder: does each level beat the one below it, under every preset, at 2 and 4 seats?

Each step of the ladder is a ``facedown sim`` tournament of single rounds between the upper level
and the lower one: at 2 seats one of each, at 4 seats two of each in alternate seats (seats rotate
from round to round, as ``facedown sim`` does).  A round's winners are the seats with the lowest
round score; the upper level's *share* of a round is the part of the win its seats took (ties
share).  The *score difference* of a round is the upper seats' mean round score minus the lower
seats'.  The upper level beats the lower one when both clear their 95% intervals: the interval
of its mean share lies above 50% (the share of two equal sides) and the interval of the mean
score difference lies below 0.  Deals are duplicate (``--no-duplicate``: a new deal every
round), so both intervals take the deal as their unit.

Both, because every preset decides a match by the total of the round scores, and the share of
round wins alone can be bought with earlier calls: in 2-player kivo, `hard` with
``call_bias=2`` took 54.8% of the wins from `hard` over 2,000 rounds, interval from 52.6%,
while scoring no better (9.19 against 9.11 a round).

    .venv/bin/python benchmarks/ladder.py --rounds 1000 --jobs 2 --markdown docs/ladder.md

Every figure follows from ``--seed``: the expert runs on an iteration budget here (the number
of sampled deals per decision), not a time budget, so that the ladder does not depend on the
machine.  ``--expert`` changes its options.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from facedown.sim import GameResult, SimConfig, deal_means, mean_interval, run, wilson

PRESETS = ("boyo", "cabo", "kivo", "kaboom")
STEPS = (
    ("easy", "random"),
    ("medium", "easy"),
    ("hard", "medium"),
    ("expert", "hard"),
    ("learned", "expert"),
)
EXPERT = "expert(budget_ms=0, iterations=24)"
# The learned level searches as the expert does: on the same iteration budget here.
LEARNED = "learned(budget_ms=0, iterations=24)"


@dataclass(frozen=True)
class Step:
    preset: str
    players: int
    upper: str
    lower: str
    rounds: int
    share: float  # the upper level's mean share of the rounds' wins
    low: float
    high: float
    upper_score: float  # mean round score per seat
    lower_score: float
    diff_low: float  # 95% interval of the mean of (upper's mean round score - lower's), per round
    diff_high: float
    seconds: float

    @property
    def wins_more(self) -> bool:
        return self.low > 0.5

    @property
    def scores_lower(self) -> bool:
        return self.diff_high < 0.0

    @property
    def holds(self) -> bool:
        return self.wins_more and self.scores_lower


def measure(
    preset: str,
    players: int,
    upper: str,
    lower: str,
    rounds: int,
    *,
    seed: int,
    jobs: int,
    expert: str = EXPERT,
    learned: str = LEARNED,
    duplicate: bool = True,
) -> Step:
    """Play one step of the ladder: ``rounds`` rounds of ``upper`` against ``lower``."""
    spec = {"expert": expert, "learned": learned}
    up, down = spec.get(upper, upper), spec.get(lower, lower)
    bots = (up, down) if players == 2 else (up, down, up, down)
    if duplicate:
        rounds -= rounds % players
    config = SimConfig(preset, players, bots, rounds, seed=seed, unit="round", duplicate=duplicate)
    start = time.perf_counter()
    results = run(config, jobs=jobs)
    seconds = time.perf_counter() - start
    seats = players / 2  # seats of each side

    def side(game: GameResult, bot: str) -> int:
        return sum(s.total for s in game.seats if s.bot == bot)

    def upper_share(game: GameResult) -> float:
        return sum(s.share for s in game.seats if s.bot == up)

    # The rounds of one duplicate deal are not independent: the intervals take the deal as
    # their unit (each deal's mean over its rounds).  Without duplicate deals the share's
    # interval is Wilson's over the rounds.
    share, low, high = mean_interval(deal_means(config, results, upper_share))
    if not duplicate:
        low, high = wilson(share * rounds, rounds)
    # Per round: the upper seats' mean round score minus the lower seats'.
    diffs = deal_means(config, results, lambda g: (side(g, up) - side(g, down)) / seats)
    _, diff_low, diff_high = mean_interval(diffs)
    return Step(
        preset,
        players,
        upper,
        lower,
        rounds,
        share,
        low,
        high,
        sum(side(g, up) for g in results) / (rounds * seats),
        sum(side(g, down) for g in results) / (rounds * seats),
        diff_low,
        diff_high,
        seconds,
    )


def row(step: Step) -> str:
    if step.holds:
        verdict = "yes"
    elif step.wins_more:
        verdict = "**no**: scores no lower"
    elif step.scores_lower:
        verdict = "**no**: wins no more"
    else:
        verdict = "**no**"
    return (
        f"| {step.preset} | {step.players} | {step.upper} > {step.lower} | {step.rounds} | "
        f"{step.share:.1%} | [{step.low:.1%}, {step.high:.1%}] | "
        f"{step.upper_score:.2f} / {step.lower_score:.2f} | "
        f"[{step.diff_low:+.2f}, {step.diff_high:+.2f}] | {verdict} |"
    )


HEADER = (
    "| preset | players | step | rounds | upper's share of wins | 95% CI | "
    "mean round score (upper / lower) | score difference, 95% CI | beats |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="rounds per step")
    parser.add_argument(
        "--expert-rounds", type=int, default=None, help="rounds of the expert steps"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--players", default="2,4")
    parser.add_argument(
        "--steps",
        default="easy,medium,hard,expert",
        help="the upper levels of the steps to run (learned: learned > expert)",
    )
    parser.add_argument("--expert", default=EXPERT, help="the expert's spec for the ladder")
    parser.add_argument("--learned", default=LEARNED, help="the learned level's spec")
    parser.add_argument(
        "--no-duplicate",
        dest="duplicate",
        action="store_false",
        help="a new deal every round (default: each deal played once per seat rotation)",
    )
    parser.add_argument("--markdown", type=Path, default=None, help="write the table here too")
    args = parser.parse_args(argv)
    wanted = set(args.steps.split(","))
    steps = []
    print(HEADER, flush=True)
    for preset in args.presets.split(","):
        for players in (int(p) for p in args.players.split(",")):
            for upper, lower in STEPS:
                if upper not in wanted:
                    continue
                rounds = args.rounds
                if upper in ("expert", "learned") and args.expert_rounds:
                    rounds = args.expert_rounds
                step = measure(
                    preset,
                    players,
                    upper,
                    lower,
                    rounds,
                    seed=args.seed,
                    jobs=args.jobs,
                    expert=args.expert,
                    learned=args.learned,
                    duplicate=args.duplicate,
                )
                steps.append(step)
                print(f"{row(step)}  <!-- {step.seconds:.0f} s -->", flush=True)
    held = sum(s.holds for s in steps)
    summary = f"{held} of {len(steps)} steps hold (expert: `{args.expert}`, seed {args.seed})."
    print(summary)
    if args.markdown:
        table = "\n".join([HEADER, *(row(s) for s in steps)])
        args.markdown.write_text(table + "\n\n" + summary + "\n", encoding="utf-8")
    return 0 if held == len(steps) else 1


if __name__ == "__main__":
    sys.exit(main())
