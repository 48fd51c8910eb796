"""Bot tournaments: many matches (or single rounds) between bots, in parallel, from one seed.

Game ``i`` of a tournament takes its deal seed and every bot's seed from ``(seed, i)`` alone, and
results are put back in game order, so a tournament is the same whatever the number of processes.
Seats rotate: in game ``i`` the bot listed ``k``-th sits at seat ``(k - i) mod players``, so over
``players`` consecutive games every bot sits once in every seat.

With ``duplicate`` (as in duplicate bridge) those ``players`` consecutive games are dealt the same
cards: every bot plays every seat of every deal, and the luck of the deal cancels out of the
comparison between bots.  The games of one deal are not independent, so a confidence interval
of a difference between bots takes the deal as its unit (:func:`deal_means`).

A game's *winners* are the match winners (``--unit match``) or the seats with the lowest round
score (``--unit round``); ``k`` winners each take a share of ``1/k``.  A bot's win rate is its
shares over its games, with a 95% Wilson score interval.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import multiprocessing
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from .bots.base import seat_info
from .bots.driver import RoundTooLong, play_match, play_round
from .bots.protocol import DEFAULT_TIMEOUT, BotError, Entrant, guard, make_entrant, split_commas
from .engine import MAX_PLAYERS, MIN_PLAYERS, Game, Ruleset, make_ruleset

Unit = Literal["match", "round"]
UNITS = ("match", "round")
Z95 = 1.959963984540054  # the standard normal quantile of 0.975


class SimError(RuntimeError):
    """A tournament cannot start or cannot go on; the message says why."""


@dataclass(frozen=True)
class SimConfig:
    """What a tournament plays: the table, the bots in listed order, how many games, the seed."""

    preset: str
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int = 0
    unit: Unit = "match"
    options: dict[str, Any] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    duplicate: bool = False

    def deal(self, index: int) -> int:
        """The deal that game ``index`` is played on (its own, unless ``duplicate``)."""
        return index // self.players if self.duplicate else index

    def rules(self) -> Ruleset:
        return make_ruleset(self.preset, self.options or None)

    def lineup(self) -> tuple[str, ...]:
        """One bot spec per seat: the listed bots, repeated in order when fewer than seats."""
        if not self.bots:
            raise SimError("name at least one bot")
        if len(self.bots) > self.players:
            raise SimError(f"{len(self.bots)} bots listed for {self.players} seats")
        return tuple(self.bots[k % len(self.bots)] for k in range(self.players))


@dataclass(frozen=True)
class SeatResult:
    """One bot's game: its totals over the rounds it played, and its share of the win."""

    seat: int
    bot: str
    lineup: int  # the bot's place in the lineup (which listed bot it is)
    total: int  # the final match total, or the round score for --unit round
    share: float
    rounds: int
    round_score_sum: int
    calls: int
    hand_total_sum: int
    faults: int
    fault_notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameResult:
    game: int
    seed: int
    rounds: int
    winners: tuple[int, ...]
    seats: tuple[SeatResult, ...]


def split_bots(text: str) -> tuple[str, ...]:
    """The bot specs of a ``--bots`` list: split at the commas outside brackets, so that
    ``expert(budget_ms=20, iterations=50),hard`` names two bots."""
    specs, open_ = split_commas(text)
    if open_ < 0:
        raise SimError(f"unbalanced ')' in the bot list {text!r}")
    if open_ > 0:
        raise SimError(f"unbalanced '(' in the bot list {text!r}")
    return tuple(s.strip() for s in specs if s.strip())


def derive_seed(*parts: object) -> int:
    """A 32-bit seed from any parts, the same in every process and on every machine."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big")


# ---------------------------------------------------------------------------------- playing
def play_game(
    config: SimConfig, rules: Ruleset, entrants: Sequence[Entrant], index: int
) -> GameResult:
    """Play game ``index`` with ``entrants`` (one per lineup place) and record it."""
    n = config.players
    if config.duplicate:
        seed = derive_seed(config.seed, config.deal(index), "deal")
    else:
        seed = derive_seed(config.seed, index, "game")
    place = [(s + index) % n for s in range(n)]  # the lineup place of the bot at seat s
    try:
        guards = []
        for s in range(n):
            k = place[s]
            bot = entrants[k].new_bot(
                seat=s,
                players=n,
                rules=rules,
                seed=derive_seed(config.seed, index, "bot", k),
                game=index,
            )
            guards.append(guard(bot, derive_seed(config.seed, index, "guard", k)))
        game = Game(rules, n, seed)
        if config.unit == "round":
            play_round(game, guards)
        else:
            play_match(game, guards)
        for s, g in enumerate(guards):
            g.game_over(seat_info(game, s))
    except (BotError, RoundTooLong) as e:
        raise SimError(f"game {index} (deal seed {seed}): {e}") from None
    history = game.history
    if config.unit == "round":
        scores = history[0].round_scores
        winners = tuple(s for s in range(n) if scores[s] == min(scores))
    else:
        winners = game.winners
    seats = tuple(
        SeatResult(
            seat=s,
            bot=entrants[place[s]].spec,
            lineup=place[s],
            total=history[-1].totals[s] if config.unit == "match" else history[0].round_scores[s],
            share=1 / len(winners) if s in winners else 0.0,
            rounds=len(history),
            round_score_sum=sum(r.round_scores[s] for r in history),
            calls=sum(r.caller == s for r in history),
            hand_total_sum=sum(r.hand_totals[s] for r in history),
            faults=guards[s].faults,
            fault_notes=tuple(guards[s].notes),
        )
        for s in range(n)
    )
    return GameResult(index, seed, len(history), winners, seats)


def play_chunk(
    config: SimConfig, start: int, stop: int, on_game: Callable[[], None] | None = None
) -> list[GameResult]:
    """Play games ``start`` to ``stop - 1`` in this process (a worker's unit of work)."""
    rules = config.rules()
    entrants: list[Entrant] = []
    try:
        for spec in config.lineup():
            entrants.append(make_entrant(spec, config.timeout))
        results = []
        for index in range(start, stop):
            results.append(play_game(config, rules, entrants, index))
            if on_game is not None:
                on_game()
        return results
    finally:
        for entrant in entrants:
            entrant.close()


def check(config: SimConfig) -> None:
    """Refuse a tournament that cannot run, before any process starts."""
    if config.unit not in UNITS:
        raise SimError(f"unit must be one of {', '.join(UNITS)}, not {config.unit!r}")
    if not MIN_PLAYERS <= config.players <= MAX_PLAYERS:
        raise SimError(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if config.games < 1:
        raise SimError("play at least one game")
    if config.duplicate and config.games % config.players:
        raise SimError(
            f"duplicate deals are played once per seat: the games ({config.games}) must be a "
            f"multiple of the players ({config.players})"
        )
    rules = config.rules()
    try:
        Game(rules, config.players, 0)
    except ValueError as e:
        raise SimError(str(e)) from None
    for spec in set(config.lineup()):
        if spec.startswith("cmd:"):
            argv = shlex.split(spec.removeprefix("cmd:"))
            if not argv or shutil.which(argv[0]) is None:
                raise SimError(f"bot {spec!r}: no program {argv[0] if argv else ''!r} found")
        else:
            make_entrant(spec).close()


def run(
    config: SimConfig, *, jobs: int = 1, progress: Callable[[int], None] | None = None
) -> list[GameResult]:
    """Play the tournament on ``jobs`` processes; ``progress`` is told each game count done."""
    try:
        check(config)
    except BotError as e:
        raise SimError(str(e)) from None
    games = config.games
    # About eight chunks per process: even loads, a lively progress bar, and few restarts of
    # cmd: programs (each chunk starts its own).  One process plays everything as one chunk.
    size = games if jobs <= 1 else max(1, math.ceil(games / (jobs * 8)))
    chunks = [(a, min(a + size, games)) for a in range(0, games, size)]
    if jobs > 1:
        return _play_in_processes(config, chunks, jobs, progress)
    done = 0
    results: list[GameResult] = []

    def one_done() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done)

    for start, stop in chunks:
        results += play_chunk(config, start, stop, one_done)
    return results


def _play_in_processes(
    config: SimConfig,
    chunks: list[tuple[int, int]],
    jobs: int,
    progress: Callable[[int], None] | None,
) -> list[GameResult]:
    """The chunks on ``jobs`` processes; the first error cancels the rest and is raised."""
    done = 0
    results: list[GameResult] = []
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        pending: set[Future[list[GameResult]]] = {
            pool.submit(play_chunk, config, a, b) for a, b in chunks
        }
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                error = future.exception()
                if error is not None:
                    for other in pending:
                        other.cancel()
                    raise error
                chunk = future.result()
                results += chunk
                done += len(chunk)
                if progress is not None:
                    progress(done)
    results.sort(key=lambda r: r.game)
    return results


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
