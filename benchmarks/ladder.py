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

With ``--matches`` the ladder plays whole matches instead, as each preset's rules end them (the
engine's own match logic, through ``facedown sim --unit match``): kivo and boyo three rounds,
cabo and kaboom until a total passes 100.  Every round of a match is shuffled from the match
seed and its round number, so on duplicate deals the matches of one deal meet the same cards
round by round, each side from every seat.  A match's winners are the engine's (the lowest
total; a tie shares the win, as every preset's text says); the upper level's share of a match
is the part of the win its seats took.  The step holds when the 95% interval of that share
lies above 50%: as in the round ladder, the normal interval over deals of each deal's mean
share; when every deal comes out the same (one side wins every match) that interval shrinks
to a point, and Wilson's is given instead, with the deal as the trial.  The mean match length
in rounds is reported with it.

    .venv/bin/python -m benchmarks.ladder --matches --jobs 2
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from facedown.engine import make_ruleset
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


DEFAULT_MATCHES = 100  # matches per step of the heuristic levels: the default run, ~10 minutes
DEFAULT_EXPERT_MATCHES = 8  # the expert's steps (it searches: a match takes seconds to minutes)
MATCH_STEPS = "easy,medium,hard"  # the expert's steps only when --steps names them


def match_length(preset: str) -> str:
    """How a match of ``preset`` ends, read from the engine's ruleset (for the table)."""
    rules = make_ruleset(preset)
    parts = []
    if rules.rounds is not None:
        parts.append(f"{rules.rounds} rounds")
    if rules.score_limit is not None:
        parts.append(f"a total past {rules.score_limit}")
    text = " or ".join(parts)
    return text + ", then sudden death" if rules.sudden_death else text


@dataclass(frozen=True)
class MatchStep:
    preset: str
    players: int
    upper: str
    lower: str
    matches: int
    won: int  # matches the upper level's seats won alone
    shared: int  # matches whose win a tie shared between the two levels
    lost: int  # matches the lower level's seats won alone
    share: float  # the upper level's mean share of the matches' wins
    low: float
    high: float
    rounds: float  # mean match length in rounds
    seconds: float

    @property
    def holds(self) -> bool:
        return self.low > 0.5


def measure_matches(
    preset: str,
    players: int,
    upper: str,
    lower: str,
    matches: int,
    *,
    seed: int,
    jobs: int,
    expert: str = EXPERT,
    duplicate: bool = True,
) -> MatchStep:
    """Play one step of the match ladder: ``matches`` whole matches of ``upper`` against
    ``lower``, each ended by the preset's rules."""
    spec = {"expert": expert}
    up, down = spec.get(upper, upper), spec.get(lower, lower)
    bots = (up, down) if players == 2 else (up, down, up, down)
    if duplicate:
        matches -= matches % players
    config = SimConfig(preset, players, bots, matches, seed=seed, unit="match", duplicate=duplicate)
    start = time.perf_counter()
    results = run(config, jobs=jobs)
    seconds = time.perf_counter() - start

    def upper_share(game: GameResult) -> float:
        return sum(s.share for s in game.seats if s.bot == up)

    shares = [upper_share(g) for g in results]
    # The deal is the unit (the matches of one duplicate deal are not independent).
    means = deal_means(config, results, upper_share)
    low, high = share_interval(means)
    return MatchStep(
        preset,
        players,
        upper,
        lower,
        matches,
        sum(v == 1.0 for v in shares),
        sum(0.0 < v < 1.0 for v in shares),
        sum(v == 0.0 for v in shares),
        sum(shares) / matches,
        low,
        high,
        sum(g.rounds for g in results) / matches,
        seconds,
    )


def share_interval(means: list[float]) -> tuple[float, float]:
    """The 95% interval of the mean of the deals' mean shares: the normal one, within [0, 1];
    Wilson's, a deal counting as one trial, when all the deals came out the same (the normal
    one is then a point, however few the deals)."""
    if len(means) > 1 and min(means) < max(means):
        _, low, high = mean_interval(means)
        return max(0.0, low), min(1.0, high)
    return wilson(sum(means), len(means))


def match_row(step: MatchStep) -> str:
    return (
        f"| {step.preset} | {match_length(step.preset)} | {step.players} | "
        f"{step.upper} > {step.lower} | {step.matches} | "
        f"{step.won} / {step.shared} / {step.lost} | {step.share:.1%} | "
        f"[{step.low:.1%}, {step.high:.1%}] | {step.rounds:.2f} | "
        f"{'yes' if step.holds else '**no**'} |"
    )


MATCH_HEADER = (
    "| preset | a match ends after | players | step | matches | won / tied / lost (upper) | "
    "upper's share of wins | 95% CI | mean rounds per match | beats |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="rounds per step")
    parser.add_argument(
        "--expert-rounds", type=int, default=None, help="rounds of the expert steps"
    )
    parser.add_argument(
        "--matches",
        type=int,
        nargs="?",
        const=DEFAULT_MATCHES,
        default=None,
        help=f"the match ladder: whole matches per step (default {DEFAULT_MATCHES}), "
        "each ended by its preset's rules, instead of rounds",
    )
    parser.add_argument(
        "--expert-matches",
        type=int,
        default=DEFAULT_EXPERT_MATCHES,
        help="matches of the expert steps of the match ladder",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--players", default="2,4")
    parser.add_argument(
        "--steps",
        default=None,
        help="the upper levels of the steps to run (default: easy,medium,hard,expert for "
        f"rounds, {MATCH_STEPS} for matches; learned: learned > expert, by rounds)",
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
    by_matches = args.matches is not None
    steps_wanted = args.steps or (MATCH_STEPS if by_matches else "easy,medium,hard,expert")
    wanted = set(steps_wanted.split(","))
    header = MATCH_HEADER if by_matches else HEADER
    rows: list[str] = []
    held = 0
    print(header, flush=True)
    for preset in args.presets.split(","):
        for players in (int(p) for p in args.players.split(",")):
            for upper, lower in STEPS:
                if upper not in wanted:
                    continue
                step: Step | MatchStep
                if by_matches:
                    size = args.expert_matches if upper == "expert" else args.matches
                    step = measure_matches(
                        preset,
                        players,
                        upper,
                        lower,
                        size,
                        seed=args.seed,
                        jobs=args.jobs,
                        expert=args.expert,
                        duplicate=args.duplicate,
                    )
                    line = match_row(step)
                else:
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
                    line = row(step)
                rows.append(line)
                held += step.holds
                print(f"{line}  <!-- {step.seconds:.0f} s -->", flush=True)
    summary = f"{held} of {len(rows)} steps hold (expert: `{args.expert}`, seed {args.seed})."
    print(summary)
    if args.markdown:
        table = "\n".join([header, *rows])
        args.markdown.write_text(table + "\n\n" + summary + "\n", encoding="utf-8")
    return 0 if held == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
