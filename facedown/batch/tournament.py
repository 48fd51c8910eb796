"""``facedown sim --batch``: a tournament of the batch's vectorised players.

The games, seeds and seat rotation are those of :mod:`facedown.sim` (game ``i`` is dealt from
the same seed, and the bot listed ``k``-th sits at seat ``(k - i) mod players``), and the deals
are the engine's, so a batch tournament plays the same deals as a tournament of bots.  The
players are the batch's own, named apart from the bot levels (:data:`BATCH_PLAYERS`):
``batch-random`` (uniform among the legal actions, sets included, calling and tapping with
probability 0.05) and ``batch-easy`` (:func:`facedown.batch.policies.easy_actions`); they are
not the bot levels ``random`` and ``easy``, whose decisions they only resemble.

The games are played in compiled code (:func:`facedown.batch.players.play_lineup`): each call
makes up to :data:`STEPS` decisions in every game not over, the results added up as rounds end;
a finished game is no longer visited.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..sim import GameResult, SeatResult, SimConfig, SimError, derive_seed
from .core import Batch, UnsupportedRules
from .players import DONE, ROUNDS, TALLY_FIELDS, play_lineup
from .policies import PLAYERS, EasyPlayer, RandomPlayer

BATCH_PLAYERS = PLAYERS
CHUNK = 4096  # games played at once
STEPS = 64  # decisions per game and compiled call


def play_batch(
    config: SimConfig, progress: Callable[[int], None] | None = None
) -> list[GameResult]:
    """Every game of ``config`` on batches of up to :data:`CHUNK` games, in game order;
    ``progress`` is told the count of games done as it grows."""
    lineup = config.lineup()
    unknown = sorted(set(lineup) - set(BATCH_PLAYERS))
    if unknown:
        raise SimError(
            f"--batch plays only {', '.join(BATCH_PLAYERS)}, not {', '.join(unknown)} "
            "(the batch's players are not the bot levels)"
        )
    results: list[GameResult] = []
    for start in range(0, config.games, CHUNK):
        stop = min(config.games, start + CHUNK)
        results += _play_chunk(config, lineup, start, stop, progress)
    return results


def _seed(config: SimConfig, index: int) -> int:
    if config.duplicate:
        return derive_seed(config.seed, config.deal(index), "deal")
    return derive_seed(config.seed, index, "game")


def _play_chunk(
    config: SimConfig,
    lineup: tuple[str, ...],
    start: int,
    stop: int,
    progress: Callable[[int], None] | None,
) -> list[GameResult]:
    n, rows = config.players, np.arange(start, stop)
    seeds = [_seed(config, i) for i in range(start, stop)]
    try:
        batch = Batch(config.rules(), n, stop - start, seeds=seeds)
    except UnsupportedRules as e:
        raise SimError(str(e)) from None
    rng = np.random.default_rng(derive_seed(config.seed, start, "batch"))
    place = (np.arange(n)[None, :] + rows[:, None]) % n  # the lineup place of seat s in game g
    easy_place = np.array([spec == "batch-easy" for spec in lineup])
    easy = easy_place[place].astype(np.int64)  # [g, seat]: 1 where the seat plays batch-easy
    random_player, easy_player = RandomPlayer(batch), EasyPlayer(batch)
    tally = np.zeros((stop - start, TALLY_FIELDS, n), dtype=np.int64)
    state = np.zeros((stop - start, 2), dtype=np.int64)
    buf, occ = batch._scratch
    todo = batch._todo
    live = np.arange(stop - start, dtype=np.int64)
    while live.size:
        count, _ = play_lineup(
            *batch._all_bundles,
            buf,
            occ,
            easy,
            live,
            int(rng.integers(2**31)),
            random_player.call,
            random_player.tap,
            easy_player.take_below,
            easy_player.call_below,
            easy_player.call,
            STEPS,
            config.unit == "round",
            tally,
            state,
            todo,
        )
        if count:
            batch._refill(todo[:count])
        live = live[state[live, DONE] == 0]
        if progress is not None:
            progress(stop - live.size)
    rounds, places, tallies = state[:, ROUNDS].tolist(), place.tolist(), tally.tolist()
    return [
        _result(start + g, seeds[g], lineup, places[g], rounds[g], tallies[g])
        for g in range(stop - start)
    ]


def _result(
    index: int,
    seed: int,
    lineup: tuple[str, ...],
    place: list[int],
    rounds: int,
    tally: list[list[int]],
) -> GameResult:
    """One game's result from its row of the tally (plain ints: quicker than numpy's)."""
    sums, hand_sums, calls, totals, winners = tally
    won = tuple(s for s, w in enumerate(winners) if w)
    seats = tuple(
        SeatResult(
            seat=s,
            bot=lineup[place[s]],
            lineup=place[s],
            total=totals[s],
            share=1 / len(won) if winners[s] else 0.0,
            rounds=rounds,
            round_score_sum=sums[s],
            calls=calls[s],
            hand_total_sum=hand_sums[s],
            faults=0,
        )
        for s in range(len(place))
    )
    return GameResult(index, seed, rounds, won, seats)
