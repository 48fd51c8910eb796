"""Bot speed: each level's decision time (p50, p99) in real games, and rounds per second.

Every seat of a table plays the level under test, whole rounds through the bots' driver
(:mod:`facedown.bots.driver`).  Every question put to a bot is timed: ``choose`` when its seat
has to act, ``react`` (may I TAP?) where the preset has TAP.  Rounds per second count the whole
loop: bots, views and engine.  Run on one core: ``python benchmarks/bots.py [--seconds S]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from facedown.bots import LEVELS, SeatInfo, make_bot
from facedown.bots.base import Bot, Reactive
from facedown.bots.driver import play_round
from facedown.engine import PRESETS, Action, Game, Ruleset


@dataclass
class Timings:
    seconds: list[float] = field(default_factory=list)
    # The CPU time of each decision (the thread's): what it costs without other processes in
    # the way, which the wall-clock figures include on a loaded machine.
    cpu: list[float] = field(default_factory=list)

    def percentile(self, q: float, cpu: bool = False) -> float:
        ordered = sorted(self.cpu if cpu else self.seconds)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Timed:
    """A bot whose every decision is timed."""

    def __init__(self, bot: Bot, timings: Timings) -> None:
        self.bot = bot
        self.timings = timings

    def choose(self, info: SeatInfo) -> Action:
        start, cpu = time.perf_counter(), time.thread_time()
        action = self.bot.choose(info)
        self.timings.seconds.append(time.perf_counter() - start)
        self.timings.cpu.append(time.thread_time() - cpu)
        return action


class TimedReactive(Timed):
    def react(self, info: SeatInfo) -> Action | None:
        if not isinstance(self.bot, Reactive):
            raise TypeError(f"{type(self.bot).__name__} does not act out of turn")
        start, cpu = time.perf_counter(), time.thread_time()
        action = self.bot.react(info)
        self.timings.seconds.append(time.perf_counter() - start)
        self.timings.cpu.append(time.thread_time() - cpu)
        return action


def timed(bot: Bot, timings: Timings) -> Bot:
    return TimedReactive(bot, timings) if isinstance(bot, Reactive) else Timed(bot, timings)


def measure(
    level: str, rules: Ruleset, players: int, seconds: float, seed: int, options: dict[str, Any]
) -> tuple[Timings, int, float]:
    """Play rounds of ``level`` at every seat for about ``seconds`` (at least one round)."""
    timings = Timings()
    rounds = 0
    start = time.perf_counter()
    while rounds == 0 or time.perf_counter() - start < seconds:
        game = Game(rules, players, seed * 1_000_003 + rounds)
        bots = [
            timed(make_bot(level, seed + 97 * rounds + s, **options), timings)
            for s in range(players)
        ]
        play_round(game, bots)
        rounds += 1
    return timings, rounds, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="per level and preset")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--expert-budget", type=float, default=200.0, help="ms per decision")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(
        f"Python {sys.version.split()[0]}, one core, {args.players} players, every seat one level"
    )
    print(
        f"expert budget {args.expert_budget:g} ms; times per question put to a bot (choose, react)"
    )
    print(
        f"{'level':8} {'preset':8} {'decisions':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}"
        f" {'rounds/s':>9} {'cpu p99 ms':>10}"
    )
    for level in args.levels.split(","):
        options = {"budget_ms": args.expert_budget} if level == "expert" else {}
        for name in args.presets.split(","):
            t, rounds, elapsed = measure(
                level, PRESETS[name], args.players, args.seconds, args.seed, options
            )
            print(
                f"{level:8} {name:8} {len(t.seconds):>9,} {t.percentile(0.5) * 1e3:>8.3f}"
                f" {t.percentile(0.99) * 1e3:>8.3f} {max(t.seconds) * 1e3:>8.3f}"
                f" {rounds / elapsed:>9,.1f} {t.percentile(0.99, cpu=True) * 1e3:>10.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
