"""How far above the expert could a search of its kind get with information no player has?

Issue 36 asks for a bot that takes at least 55% of the round wins from the expert at 2 seats.
This benchmark bounds what better information could give: the ladder's expert (24 sampled deals
a search) against the same expert whose sampled deals are made partly *true*, so that it
searches over the real table instead of guesses at it.  ``--cheat`` says how much it knows,
each more than the one before:

- ``none``: nothing more (the expert against itself: the harness's check, about 50%);
- ``events``: no cheat either, the expert that follows the events (``track_events=True``);
- ``kept``: no cheat, the expert that follows the events and deals an opponent's known card by
  the fitted model of :mod:`facedown.bots.kept` (fitted first from ``--kept-rounds`` rounds of
  `hard` self-play at the table, ``--kept-seed``);
- ``read``: every card that someone at the table has seen, where it lies and who knows it; the
  cards nobody has seen (in any hand, and the draw pile) dealt as any of them.  A perfect
  reading of every player's mind and no more: the bound on what inference from play can give,
  since a card nobody has seen leaves no trace in anyone's play;
- ``theirs``: also the opponents' cards nobody has seen;
- ``hands``: also its own (every hand as it lies; the draw pile shuffled);
- ``deal``: also the draw pile's order (the whole deal, for scale).

Each deal is played once per seat rotation (at 2 seats the cheater in seat 0, then seat 1; at 4
seats two cheaters in alternate seats, then the other two), as a single round from the deal's
seed.  The cheater's *share* of a round is the part of its win the cheater's seats took (ties
share); the *score difference* is their mean round score minus the others'.  Both intervals are
normal intervals over deals of each deal's mean, as in the ladder (``benchmarks/ladder.py``).

    .venv/bin/python -m benchmarks.ceiling --players 2 --cheat none,read,theirs --deals 300 --jobs 2

A benchmark, not a bot: the cheater is handed the table (``CheatingExpert.table``) by this
script's own loop, which no bot seat of the product does.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from facedown.bots.base import SeatInfo
from facedown.bots.driver import play_round
from facedown.bots.kept import KeptCards
from facedown.bots.search import ExpertBot
from facedown.engine import Game, make_ruleset
from facedown.keptfit import fit
from facedown.sim import mean_interval

CHEATS = ("none", "events", "kept", "read", "theirs", "hands", "deal")
ITERATIONS = 24  # the ladder's expert: expert(budget_ms=0, iterations=24)


class TrueDeals:
    """The cheater's sampler: the real table, with the cards ``cheat`` hides dealt again.

    ``deal`` hides nothing; ``hands`` shuffles the draw pile; ``theirs`` also deals the
    cheater's own cards that nobody at the table knows, with the draw pile, as any of them;
    ``read`` deals so the cards nobody knows in every hand.
    """

    def __init__(self, table: Game, seat: int, cheat: str) -> None:
        self.table = table
        self.seat = seat
        self.cheat = cheat

    def sample(self, rng: random.Random) -> Game:
        game = self.table.clone()
        if self.cheat == "deal":
            pass
        elif self.cheat == "hands":
            rng.shuffle(game.draw_pile)
        else:
            anyone = game.public
            for mask in game.known:
                anyone |= mask
            # The places dealt again: the cheater's own (``theirs``) or every seat's (``read``)
            # whose card nobody at the table knows.
            seats = [self.seat] if self.cheat == "theirs" else range(game.players)
            places = [
                (o, s)
                for o in seats
                for s, c in enumerate(game.hands[o])
                if c >= 0 and not (anyone >> c) & 1
            ]
            pool = [game.hands[o][s] for o, s in places] + game.draw_pile
            rng.shuffle(pool)
            for o, s in places:
                game.hands[o][s] = pool.pop()
            game.draw_pile = pool
        game.seed = rng.getrandbits(30)  # later reshuffles from the search's own randomness
        return game


class CheatingExpert(ExpertBot):
    """The expert, searching over the real table (``cheat`` says how much of it)."""

    def __init__(self, cheat: str, seed: int, **options: Any) -> None:
        if cheat in ("events", "kept"):
            options["track_events"] = True
        super().__init__(seed=seed, budget_ms=0, iterations=ITERATIONS, **options)
        self.cheat = cheat
        self.table: Game | None = None

    def sampler(self, info: SeatInfo) -> Any:  # a Sampler, or the deals made true
        if self.cheat in ("none", "events", "kept") or self.table is None:
            return super().sampler(info)
        return TrueDeals(self.table, info.seat, self.cheat)


@dataclass(frozen=True)
class Task:
    preset: str
    players: int
    cheat: str
    seed: int
    deal: int
    kept: KeptCards | None = None  # ``kept``: the fitted model


def play_deal(task: Task) -> tuple[float, float]:
    """One deal played once per rotation: the cheater's mean share and score difference."""
    shares: list[float] = []
    diffs: list[float] = []
    rules = make_ruleset(task.preset)
    deal_seed = task.seed * 1_000_003 + task.deal
    for rotation in (0, 1):
        cheaters = {s for s in range(task.players) if s % 2 == rotation}
        bots: list[ExpertBot] = []
        for s in range(task.players):
            bot_seed = deal_seed * 16 + rotation * 8 + s
            if s in cheaters:
                bots.append(CheatingExpert(task.cheat, bot_seed, kept=task.kept))
            else:
                bots.append(ExpertBot(seed=bot_seed, budget_ms=0, iterations=ITERATIONS))
        game = Game(rules, task.players, deal_seed)
        for bot in bots:
            if isinstance(bot, CheatingExpert):
                bot.table = game  # the table is changed in place as the round goes on
        result = play_round(game, bots)
        scores = result.round_scores
        low = min(scores)
        winners = [s for s in range(task.players) if scores[s] == low]
        shares.append(sum(1 for s in winners if s in cheaters) / len(winners))
        mine = [scores[s] for s in cheaters]
        theirs = [scores[s] for s in range(task.players) if s not in cheaters]
        diffs.append(sum(mine) / len(mine) - sum(theirs) / len(theirs))
    return sum(shares) / len(shares), sum(diffs) / len(diffs)


def tasks(
    preset: str, players: int, cheat: str, seed: int, deals: int, kept: KeptCards | None = None
) -> Iterator[Task]:
    for deal in range(deals):
        yield Task(preset, players, cheat, seed, deal, kept)


def row(
    preset: str, players: int, cheat: str, deals: list[tuple[float, float]], seconds: float
) -> str:
    """One line of the table: the means over deals and their 95% intervals."""
    share, s_lo, s_hi = mean_interval([d[0] for d in deals])
    diff, d_lo, d_hi = mean_interval([d[1] for d in deals])
    return (
        f"| {preset} | {players} | {cheat} | {2 * len(deals)} | {100 * share:.1f}% "
        f"| [{100 * s_lo:.1f}%, {100 * s_hi:.1f}%] | {diff:+.2f} "
        f"| [{d_lo:+.2f}, {d_hi:+.2f}] | {seconds:.0f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", default="kivo,cabo,boyo,kaboom")
    parser.add_argument("--players", default="2", help="comma-separated seat counts (2, 4)")
    parser.add_argument("--cheat", default="read", help=f"comma-separated, of {', '.join(CHEATS)}")
    parser.add_argument("--deals", type=int, default=150, help="deals a row (two rounds each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--kept-rounds", type=int, default=800, help="rounds the kept model fits")
    parser.add_argument("--kept-seed", type=int, default=11)
    args = parser.parse_args(argv)
    cheats = args.cheat.split(",")
    for cheat in cheats:
        if cheat not in CHEATS:
            parser.error(f"unknown cheat {cheat!r}")
    print(
        "| preset | players | cheat | rounds | cheater's share of wins | 95% CI "
        "| score difference | 95% CI | seconds |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for preset in args.presets.split(","):
            for players in (int(p) for p in args.players.split(",")):
                for cheat in cheats:
                    started = time.perf_counter()
                    kept = None
                    if cheat == "kept":
                        tables = [(preset, players)]
                        kept = fit(tables, args.kept_rounds, args.kept_seed)
                    deals = tasks(preset, players, cheat, args.seed, args.deals, kept)
                    rows = list(pool.map(play_deal, deals))
                    print(
                        row(preset, players, cheat, rows, time.perf_counter() - started), flush=True
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
