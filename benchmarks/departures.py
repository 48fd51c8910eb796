"""Where the expert departs from `hard`, and what each kind of departure is worth.

The expert starts every decision from the `hard` heuristic's choice and keeps it unless its
search finds better.  This plays rounds of one expert against `hard` and notes every decision
where the expert chose otherwise.  Then, from the real state of each such decision (the true
deal, which the expert never saw), it plays the round to its end ``--continuations`` times after
`hard`'s choice and as often after the expert's, with fresh `hard` bots at every seat and the
same randomness for both, and takes the mean difference of the expert's seat's round score
minus the others' mean (below 0: the departure was worth it).

The continuations are played by copies of the table's `hard` bots as they stood at the decision
(for the expert's seat, the `hard` heuristic the expert starts from), so every seat keeps what it
remembered; each continuation reseeds them.  Fresh bots (an earlier version) forgot the discard
pile and biased the price of a call badly: at `hard`'s own calls in 2-player kivo they priced
calling at +3.58 against playing on, the real bots at -0.79.

    .venv/bin/python benchmarks/departures.py --preset kivo --players 2 --rounds 300
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections import defaultdict
from dataclasses import dataclass

from facedown.bots.base import Bot, SeatInfo
from facedown.bots.calling import relative
from facedown.bots.driver import next_action, play_round
from facedown.bots.heuristic import HeuristicBot
from facedown.bots.profiles import HARD
from facedown.bots.protocol import parse_level
from facedown.bots.search import ExpertBot
from facedown.engine import PRESETS, Action, Game
from facedown.sim import mean_interval

EXPERT = "expert(budget_ms=0, iterations=24)"


@dataclass(frozen=True)
class Departure:
    """A decision where the expert chose ``chosen`` and `hard` would have chosen ``default``."""

    game: Game  # the real state before the decision
    seat: int
    phase: str
    default: Action
    chosen: Action
    bots: tuple[HeuristicBot, ...]  # the seats' `hard` players as they stood at the decision

    @property
    def kind(self) -> str:
        return f"{self.phase}: {self.default.kind} -> {self.chosen.kind}"


class _Watched(ExpertBot):
    """An expert that notes each decision where it leaves the heuristic's choice."""

    def __init__(self, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.departures: list[Departure] = []
        self.game: Game | None = None
        self.table: list[HeuristicBot] = []  # the other seats' bots (this seat's is unused)

    def choose(self, info: SeatInfo) -> Action:
        self.last_default = None
        chosen = super().choose(info)
        default = self.last_default
        if default is not None and chosen != default and self.game is not None:
            # The heuristic has taken in this decision (its memory, its turn count).
            bots = [self.base if seat == info.seat else bot for seat, bot in enumerate(self.table)]
            departure = Departure(
                self.game.clone(),
                info.seat,
                info.view.phase,
                default,
                chosen,
                tuple(copy.deepcopy(bots)),
            )
            self.departures.append(departure)
        return chosen


def find_departures(
    preset: str, players: int, rounds: int, seed: int, expert: str = EXPERT
) -> list[Departure]:
    """The expert's departures from `hard` over ``rounds`` rounds (its seat rotating)."""
    _, options = parse_level(expert)
    found: list[Departure] = []
    for r in range(rounds):
        game = Game(PRESETS[preset], players, seed=seed * 100_000 + r)
        watched = _Watched(seed=seed + r, **options)
        watched.game = game
        hard = [HeuristicBot(HARD, seed=seed + r * players + i) for i in range(players)]
        watched.table = hard
        bots: list[Bot] = list(hard)
        bots[r % players] = watched
        while not game.is_round_over:
            game.apply(next_action(game, bots))
        found += watched.departures
    return found


def worth(departure: Departure, continuations: int, seed: int) -> float:
    """The mean of (after the expert's choice - after `hard`'s) of the seat's relative score."""
    total = 0.0
    for k in range(continuations):
        outcome = []
        for action in (departure.default, departure.chosen):
            game = departure.game.clone()
            game.seed = seed * 1_000 + k  # the same reshuffles after either choice
            game.apply(action)
            if not game.is_round_over:
                bots = copy.deepcopy(departure.bots)
                for i, bot in enumerate(bots):
                    bot.rng.seed(seed + 7 * k + i)  # its memory forgets with the same generator
                bots[departure.seat].memory.last_action = action
                play_round(game, bots)
            outcome.append(relative(game.history[-1].round_scores, departure.seat))
        total += outcome[1] - outcome[0]
    return total / continuations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="kivo", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--continuations", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--expert", default=EXPERT, help="the expert's spec")
    args = parser.parse_args(argv)
    departures = find_departures(args.preset, args.players, args.rounds, args.seed, args.expert)
    by_kind: dict[str, list[float]] = defaultdict(list)
    for d in departures:
        by_kind[d.kind].append(worth(d, args.continuations, args.seed))
    print(
        f"{args.preset}, {args.players} players, {args.rounds} rounds of `{args.expert}` "
        f"against hard: {len(departures)} departures"
    )
    print("| departure | count | worth each (95% CI) | worth per round |")
    print("| --- | --- | --- | --- |")
    everything = [v for values in by_kind.values() for v in values]
    rows = sorted(by_kind.items(), key=lambda kv: -len(kv[1]))
    for kind, values in [*rows, ("all", everything)]:
        if not values:
            continue
        mean, low, high = mean_interval(values)
        print(
            f"| {kind} | {len(values)} | {mean:+.2f} [{low:+.2f}, {high:+.2f}] "
            f"| {sum(values) / args.rounds:+.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
