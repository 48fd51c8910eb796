"""Playing a tournament: its configuration, each game played and recorded, the games spread
over processes (the package's docstring says how seeds and seats follow from the game's number).
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import shlex
import shutil
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Literal

from ..bots.driver import RoundTooLong, play_match, play_round
from ..bots.feed import EventFeed
from ..bots.protocol import DEFAULT_TIMEOUT, BotError, Entrant, guard, make_entrant, split_commas
from ..engine import MAX_PLAYERS, MIN_PLAYERS, Game, Ruleset, make_ruleset

Unit = Literal["match", "round"]
UNITS = ("match", "round")


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
        feed = EventFeed()  # the game's events, each given to a bot with its next observation
        if config.unit == "round":
            play_round(game, guards, feed=feed)
        else:
            play_match(game, guards, feed=feed)
        for s, g in enumerate(guards):
            g.game_over(feed.info(game, s))  # with what it has not been told: the game's end
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
    """The chunks on ``jobs`` processes; the first error (or Ctrl-C) stops the rest at once and
    is raised."""
    done = 0
    results: list[GameResult] = []
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=ignore_ctrl_c)
    try:
        pending: set[Future[list[GameResult]]] = {
            pool.submit(play_chunk, config, a, b) for a, b in chunks
        }
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                error = future.exception()
                if error is not None:
                    raise error
                chunk = future.result()
                results += chunk
                done += len(chunk)
                if progress is not None:
                    progress(done)
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown()
    results.sort(key=lambda r: r.game)
    return results


def ignore_ctrl_c() -> None:
    """A worker process's start: Ctrl-C (SIGINT to the terminal's whole process group) is
    the parent's to handle; the worker would stop half way and print its traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: nothing queued starts, and the chunks being played are not finished
    (an executor's own shutdown waits for every chunk already handed to a worker)."""
    # The executor's own processes (3.14 has terminate_workers for this); shutdown forgets them.
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
