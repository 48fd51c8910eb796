"""Does the expert play better knowing, from the events, which cards its opponents know?

Plays single rounds of the expert that follows the events (``track_events=True``) against the
same expert told not to (``track_events=False``), on duplicate deals: each deal once with each
side in each seat.  Both are given every event since their last observation, as a table shows
them to a player, by the small driver here (:func:`play_round`).  Reports the tracking side's
share of the round wins and the mean of its round score minus the other's, with 95% intervals
over deals (the deal is the unit: its rounds are not independent).  With ``--bias`` it reports
instead how far the sampled opponent hands are from the real ones, with and without tracking.

    nice -n 19 .venv/bin/python -m benchmarks.aware --preset kivo --deals 150 --jobs 2
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from multiprocessing import Pool

from facedown.bots import make_bot
from facedown.bots.base import Bot, Reactive, SeatInfo
from facedown.bots.search import ExpertBot
from facedown.engine import PRESETS, Event, Game, observe
from facedown.engine.phases import TURN_START
from facedown.sim import derive_seed, mean_interval

ITERATIONS = 24  # the ladder's expert: expert(budget_ms=0, iterations=24)


def play_round(
    game: Game, bots: Sequence[Bot], chose: Callable[[SeatInfo], None] | None = None
) -> None:
    """Play the round, giving every bot the events since it was last given an observation;
    ``chose`` is told of every info a bot chose at, after it chose."""
    # A new game's first deal is not an event: a bot follows the round from the opening peek.
    pending: list[list[Event]] = [[] for _ in bots]

    def info_for(seat: int) -> SeatInfo:
        info = observe(game, seat, pending[seat], knowledge=True)
        pending[seat] = []
        return info

    while not game.is_round_over:
        waiting = game.awaiting()
        action = None
        for tapper in waiting.may_tap:
            bot = bots[tapper]
            if isinstance(bot, Reactive):
                action = bot.react(info_for(tapper))
                if action is not None:
                    break
        if action is None:
            seat = waiting.first
            assert seat is not None  # noqa: S101 - a round in play waits for someone
            info = info_for(seat)
            action = bots[seat].choose(info)
            if chose is not None:
                chose(info)
        events = game.apply(action)
        for seen in pending:
            seen.extend(events)


def deal_outcome(job: tuple[str, int, int]) -> tuple[float, float]:
    """One deal played twice, the tracking expert at seat 0 then at seat 1: its mean share of
    the wins and its mean round score minus the other's."""
    preset, seed, deal = job
    share = diff = 0.0
    for tracker in (0, 1):
        bots = [
            ExpertBot(
                seed=derive_seed(seed, deal, tracker, seat),
                budget_ms=0,
                iterations=ITERATIONS,
                track_events=seat == tracker,
            )
            for seat in range(2)
        ]
        game = Game(PRESETS[preset], 2, derive_seed(seed, deal, "deal"))
        play_round(game, bots)
        scores = game.history[0].round_scores
        low = min(scores)
        winners = [s for s in range(2) if scores[s] == low]
        share += (tracker in winners) / len(winners) / 2
        diff += (scores[tracker] - scores[1 - tracker]) / 2
    return share, diff


Errors = dict[bool, dict[int, list[float]]]  # tracking or not -> own turn -> errors


def bias(preset: str, rounds: int, samples: int, seed: int) -> Errors:
    """Sampled minus real opponent hand totals at the expert's turn starts, by its own turn,
    with the events followed (True) and not (False), from the same memory at the same
    decisions: rounds of one tracking expert against `hard`, 2 seats."""
    errors: Errors = {True: defaultdict(list), False: defaultdict(list)}
    rng = random.Random(seed)
    for r in range(rounds):
        game = Game(PRESETS[preset], 2, derive_seed(seed, r, "bias"))
        expert = ExpertBot(seed=seed + r, budget_ms=0, iterations=8, track_events=True)
        play_round(
            game,
            [expert, make_bot("hard", seed=seed + r)],
            _comparer(game, expert, rng, samples, errors),
        )
    return errors


def _comparer(
    game: Game, expert: ExpertBot, rng: random.Random, samples: int, errors: Errors
) -> Callable[[SeatInfo], None]:
    """What to do after each choice of a :func:`bias` round: at the expert's turn starts,
    sample deals with and without the events and note their errors."""

    def compare(info: SeatInfo) -> None:
        if info.seat != 0 or info.view.phase is not TURN_START:
            return
        for tracked in (True, False):
            expert.track_events = tracked
            sampler = expert.sampler(info)
            total = sum(sampler.sample(rng).hand_total(1) for _ in range(samples))
            turn = min(expert.base.turns, 8)
            errors[tracked][turn].append(total / samples - game.hand_total(1))
        expert.track_events = True

    return compare


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="kivo", choices=sorted(PRESETS))
    parser.add_argument("--deals", type=int, default=150, help="deals (two rounds each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--bias", type=int, default=0, help="rounds against hard for the sampled totals' bias"
    )
    args = parser.parse_args(argv)
    if args.bias:
        errors = bias(args.preset, args.bias, 40, args.seed)
        print(f"{args.preset}, 2 players, {args.bias} rounds of expert against hard")
        print("own turn | sampled minus real opponent total, tracking | not tracking")
        for turn in sorted(errors[True]):
            cells = [mean_interval(errors[t][turn]) for t in (True, False)]
            text = " | ".join(f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]" for m, lo, hi in cells)
            label = f"{turn}+" if turn == 8 else str(turn)
            print(f"{label:>8} | {text}")
        return 0
    jobs = [(args.preset, args.seed, d) for d in range(args.deals)]
    with Pool(args.jobs) as pool:
        outcomes = pool.map(deal_outcome, jobs, chunksize=1)
    share, low, high = mean_interval([s for s, _ in outcomes])
    diff, dlow, dhigh = mean_interval([d for _, d in outcomes])
    print(f"{args.preset}, 2 players, {2 * args.deals} rounds on {args.deals} duplicate deals,")
    print(f"expert(budget_ms=0, iterations={ITERATIONS}) tracking the events against not:")
    print(f"  share of wins {share:.1%} [{low:.1%}, {high:.1%}]")
    print(f"  round score minus the other's {diff:+.2f} [{dlow:+.2f}, {dhigh:+.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
