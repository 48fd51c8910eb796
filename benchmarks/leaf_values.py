"""Fit the expert's horizon values (:mod:`facedown.bots.leaf`) to rounds of `hard` against `hard`.

At every turn start of every seat (before any call), it notes each seat's hand as
:func:`facedown.bots.leaf.seat_features` reads it, and at the end of the round that seat's round
score minus the others' mean.  A least-squares fit of the one to the other, per preset and
number of seats, gives the weights of :data:`facedown.bots.leaf.WEIGHTS`.  It prints, per table,
the weights and how well they predict rounds it did not fit (a second set of rounds): the mean
squared error of the prediction, and that of the plain difference of hand totals, scaled by its
own least-squares factor (what the expert compared before).

    .venv/bin/python benchmarks/leaf_values.py --jobs 2
"""

from __future__ import annotations

import argparse
import sys
from multiprocessing import Pool

import numpy as np

from facedown.bots import make_bot
from facedown.bots.driver import next_action
from facedown.bots.leaf import FEATURES, features
from facedown.engine import PRESETS, Game
from facedown.engine.phases import TURN_START

Row = tuple[list[float], float]


def rows(preset: str, players: int, rounds: int, seed: int) -> list[Row]:
    """(features, outcome) at every turn start of ``rounds`` rounds of `hard` bots."""
    rules = PRESETS[preset]
    out: list[Row] = []
    for r in range(rounds):
        game = Game(rules, players, seed=seed * 1_000_003 + r, first=r % players)
        bots = [make_bot("hard", seed=seed * 7919 + r * players + i) for i in range(players)]
        seen: list[tuple[int, list[float]]] = []
        previous: tuple[str, int] | None = None
        while not game.is_round_over:
            now = (game.phase, game.turn)
            if game.phase == TURN_START and game.caller < 0 and now != previous:
                seen.append((game.turn, features(game, game.turn)))
            previous = now
            game.apply(next_action(game, bots))
        scores = game.history[-1].round_scores
        for seat, x in seen:
            others = (sum(scores) - scores[seat]) / (players - 1)
            out.append((x, scores[seat] - others))
    return out


def fit(data: list[Row], ridge: float = 1e-6) -> list[float]:
    """Least-squares weights (numpy's; a tiny ridge keeps a constant feature, such as a fixed
    hand size, from taking a weight of its own: it comes out 0)."""
    x = np.array([row for row, _ in data])
    y = np.array([target for _, target in data])
    if ridge > 0:
        k = x.shape[1]
        x = np.vstack([x, np.sqrt(ridge * len(data)) * np.eye(k)])
        y = np.concatenate([y, np.zeros(k)])
    weights, *_ = np.linalg.lstsq(x, y, rcond=None)
    return [float(w) for w in weights]


def mse(data: list[Row], weights: list[float]) -> float:
    errors = [sum(w * v for w, v in zip(weights, x, strict=True)) - y for x, y in data]
    return sum(e * e for e in errors) / len(errors)


def one_table(job: tuple[str, int, int, int]) -> tuple[str, int, list[float], float, float, int]:
    preset, players, rounds, seed = job
    train = rows(preset, players, rounds, seed)
    test = rows(preset, players, rounds, seed + 1)
    weights = fit(train)
    # The plain difference of hand totals, with its best scale: a weight on that feature only.
    totals = [(x[1:2], y) for x, y in train]
    scale = fit(totals)[0]
    plain = mse([(x[1:2], y) for x, y in test], [scale])
    return preset, players, weights, mse(test, weights), plain, len(train)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--players", default="2,3,4,6")
    parser.add_argument(
        "--rounds", type=int, default=2000, help="rounds to fit (and as many to test)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    jobs = [
        (preset, int(n), args.rounds, args.seed)
        for preset in args.presets.split(",")
        for n in args.players.split(",")
    ]
    with Pool(args.jobs) as pool:
        results = pool.map(one_table, jobs, chunksize=1)
    print(f"features: {', '.join(FEATURES)}")
    print("table     | turn starts | held-out MSE: fitted / hand totals | weights")
    for preset, players, weights, fitted, plain, n in results:
        shown = ", ".join(f"{w:+.3f}" for w in weights)
        print(f"{preset:<7} {players} | {n:>11,} | {fitted:>8.2f} / {plain:<8.2f} | {shown}")
    print("\nWEIGHTS = {")
    for preset, players, weights, *_ in results:
        print(f"    ({preset!r}, {players}): ({', '.join(f'{w:.4f}' for w in weights)}),")
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
