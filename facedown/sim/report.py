"""What a tournament's games come to: win rates with their intervals, the standings table,
the results as CSV or JSON files, and the progress bar of a running tournament.
"""

from __future__ import annotations

import csv
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from .play import GameResult, SeatResult, SimConfig, SimError

Z95 = 1.959963984540054  # the standard normal quantile of 0.975


# ---------------------------------------------------------------------------------- standings
def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``successes`` may be fractional: shared wins)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At p = 0 or 1 the bound is exactly 0 or 1; say so rather than round to 0.9999...
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return (low, high)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """The mean of independent ``values`` and the low and high ends of its 95% interval."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, n - 1))
    half = z * sd / math.sqrt(n)
    return (mean, mean - half, mean + half)


def deal_means(
    config: SimConfig, results: Sequence[GameResult], value: Callable[[GameResult], float]
) -> list[float]:
    """``value`` of every game, averaged over the games of each deal: one figure per deal, and
    the deals are independent (with ``duplicate`` the games of one deal are not)."""
    groups: dict[int, list[float]] = {}
    for game in results:
        groups.setdefault(config.deal(game.game), []).append(value(game))
    return [sum(v) / len(v) for v in groups.values()]


@dataclass(frozen=True)
class Standing:
    """One bot's tournament: its games (one per seat it held), wins and means per round."""

    bot: str
    games: int
    wins: float
    win_rate: float
    ci_low: float
    ci_high: float
    mean_round_score: float
    calls_per_round: float
    mean_hand_total: float
    faults: int
    fault_notes: tuple[str, ...]


def standings(results: Sequence[GameResult]) -> list[Standing]:
    """Per bot (by spec, seats of the same spec pooled), in the order first listed."""
    by_bot: dict[str, list[SeatResult]] = {}
    for game in results:
        for seat in sorted(game.seats, key=lambda s: s.lineup):
            by_bot.setdefault(seat.bot, []).append(seat)
    out = []
    for bot, seats in by_bot.items():
        games = len(seats)
        wins = sum(s.share for s in seats)
        rounds = sum(s.rounds for s in seats) or 1
        low, high = wilson(wins, games)
        notes = [note for s in seats for note in s.fault_notes][:3]
        out.append(
            Standing(
                bot=bot,
                games=games,
                wins=wins,
                win_rate=wins / games,
                ci_low=low,
                ci_high=high,
                mean_round_score=sum(s.round_score_sum for s in seats) / rounds,
                calls_per_round=sum(s.calls for s in seats) / rounds,
                mean_hand_total=sum(s.hand_total_sum for s in seats) / rounds,
                faults=sum(s.faults for s in seats),
                fault_notes=tuple(notes),
            )
        )
    return out


def format_standings(rows: Sequence[Standing]) -> str:
    """The standings as a text table (win rates with their 95% intervals)."""
    width = max([len("bot"), *(len(r.bot) for r in rows)])
    lines = [
        f"{'bot':<{width}}  {'games':>6}  {'win rate':>8}  {'95% CI':>15}  "
        f"{'round score':>11}  {'calls/round':>11}  {'hand at reveal':>14}  {'faults':>6}"
    ]
    for r in rows:
        ci = f"[{r.ci_low:6.1%}, {r.ci_high:6.1%}]"
        lines.append(
            f"{r.bot:<{width}}  {r.games:>6}  {r.win_rate:>8.1%}  {ci:>15}  "
            f"{r.mean_round_score:>11.2f}  {r.calls_per_round:>11.3f}  "
            f"{r.mean_hand_total:>14.2f}  {r.faults:>6}"
        )
    for r in rows:
        if r.faults:
            lines.append(f"{r.bot}: {r.faults} fault(s), e.g. {'; '.join(r.fault_notes)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- files
CSV_FIELDS = (
    "game",
    "seed",
    "seat",
    "bot",
    "lineup",
    "rounds",
    "total",
    "win_share",
    "round_score_sum",
    "calls",
    "hand_total_sum",
    "faults",
)


def write_csv(stream: TextIO, results: Sequence[GameResult]) -> None:
    """One row per game and seat."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for game in results:
        for s in game.seats:
            writer.writerow(
                [
                    game.game,
                    game.seed,
                    s.seat,
                    s.bot,
                    s.lineup,
                    game.rounds,
                    s.total,
                    round(s.share, 6),
                    s.round_score_sum,
                    s.calls,
                    s.hand_total_sum,
                    s.faults,
                ]
            )


def results_json(config: SimConfig, results: Sequence[GameResult]) -> dict[str, Any]:
    """The tournament as JSON data: its configuration, the standings and every game."""
    return {
        "config": {**asdict(config), "bots": list(config.bots)},
        "standings": [
            {**asdict(r), "fault_notes": list(r.fault_notes)} for r in standings(results)
        ],
        "games": [
            {
                "game": g.game,
                "seed": g.seed,
                "rounds": g.rounds,
                "winners": list(g.winners),
                "seats": [_seat_json(s) for s in g.seats],
            }
            for g in results
        ],
    }


def _seat_json(seat: SeatResult) -> dict[str, Any]:
    data = asdict(seat)
    if seat.fault_notes:
        data["fault_notes"] = list(seat.fault_notes)
    else:
        del data["fault_notes"]
    return data


def write_results(path: Path, config: SimConfig, results: Sequence[GameResult]) -> None:
    """Write ``.csv`` (a row per game and seat) or ``.json`` (everything), by the extension."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise SimError(f"write results to a .csv or .json file, not {path.name!r}")
    with path.open("w", encoding="utf-8", newline="") as stream:
        if suffix == ".csv":
            write_csv(stream, results)
        else:
            json.dump(results_json(config, results), stream, indent=1)
            stream.write("\n")


# ---------------------------------------------------------------------------------- progress
class ProgressBar:
    """A one-line progress bar, redrawn in place at most ten times a second."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr  # the one of now
        self.width = width
        self.start = time.monotonic()
        self.drawn = 0.0

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if done < self.total and now - self.drawn < 0.1:
            return
        self.drawn = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (self.total - done) / rate if rate > 0 else 0.0
        filled = self.width * done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(
            f"\r[{bar}] {done}/{self.total} {done / self.total:4.0%}  "
            f"{rate:7.1f} games/s  eta {left:5.0f} s"
        )
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()
