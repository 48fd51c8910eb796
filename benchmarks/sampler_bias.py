"""How far the expert's sampled deals put the opponents' hands from the truth, by turn.

The expert searches over deals it samples (:class:`~facedown.bots.determinize.Sampler`): the
cards it knows where they lie, the others dealt from the unseen cards, an opponent's unknown
card dealt low to stand for players keeping low cards.  This plays rounds of one expert against
`hard` and, at each of the expert's turn starts (where it decides whether to call), compares
the mean hand total of every opponent over ``--samples`` sampled deals with that opponent's real
total.  A positive error means the expert thinks the opponents hold more than they do (it will
call too readily, and search against hands that are too high).

    .venv/bin/python benchmarks/sampler_bias.py --preset kivo --players 2 --rounds 60
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict

from facedown.bots import make_bot
from facedown.bots.base import Bot, seat_info
from facedown.bots.driver import next_action
from facedown.bots.search import ExpertBot
from facedown.engine import PRESETS, Game
from facedown.engine.phases import TURN_START
from facedown.sim import mean_interval


def errors_by_turn(
    preset: str, players: int, rounds: int, samples: int, seed: int, keep_low: float | None = None
) -> dict[int, list[float]]:
    """Sampled minus real opponent hand totals at the expert's turn starts, by its own turn."""
    rules = PRESETS[preset]
    rng = random.Random(seed)
    errors: dict[int, list[float]] = defaultdict(list)
    for r in range(rounds):
        game = Game(rules, players, seed=seed * 100_000 + r)
        expert = ExpertBot(seed=seed + r, budget_ms=0, iterations=8, keep_low=keep_low)
        bots: list[Bot] = [expert]
        bots += [make_bot("hard", seed=seed + r * players + i) for i in range(1, players)]
        while not game.is_round_over:
            deciding = game.phase == TURN_START and game.turn == 0
            info = seat_info(game, 0) if deciding else None
            action = next_action(game, bots)  # the expert observes ``info`` here
            if info is not None:
                sampler = expert.sampler(info)
                sums = [0.0] * players
                for _ in range(samples):
                    dealt = sampler.sample(rng)
                    for p in range(1, players):
                        sums[p] += dealt.hand_total(p)
                for p in range(1, players):
                    errors[expert.base.turns].append(sums[p] / samples - game.hand_total(p))
            game.apply(action)
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="kivo", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--samples", type=int, default=40, help="sampled deals per decision")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--keep-low", type=float, default=None, help="the expert's keep_low (default: its own)"
    )
    parser.add_argument("--last", type=int, default=8, help="turns from this one on are pooled")
    args = parser.parse_args(argv)
    errors = errors_by_turn(
        args.preset, args.players, args.rounds, args.samples, args.seed, args.keep_low
    )
    pooled: dict[int, list[float]] = defaultdict(list)
    for turn, values in errors.items():
        pooled[min(turn, args.last)] += values
    print(f"{args.preset}, {args.players} players, {args.rounds} rounds of expert against hard")
    print("own turn | opponent hands seen | sampled minus real total (mean, 95% CI)")
    for turn in sorted(pooled):
        values = pooled[turn]
        mean, low, high = mean_interval(values)
        label = f"{turn}+" if turn == args.last else str(turn)
        print(f"{label:>8} | {len(values):>19} | {mean:+.2f} [{low:+.2f}, {high:+.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
