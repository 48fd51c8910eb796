"""``facedown sim --batch``: a tournament of the batch's vectorised players.

The games, seeds and seat rotation are those of :mod:`facedown.sim` (game ``i`` is dealt from
the same seed, and the bot listed ``k``-th sits at seat ``(k - i) mod players``), and the deals
are the engine's, so a batch tournament plays the same deals as a tournament of bots.  The
players are the batch's own: ``random`` (uniform among the legal actions, sets included, calling
with probability 0.05) and ``easy`` (:func:`facedown.batch.policies.easy_actions`); they are
not the bot levels of the same names, whose decisions they only resemble.
"""

from __future__ import annotations

import numpy as np

from ..sim import GameResult, SeatResult, SimConfig, SimError, derive_seed
from .core import Batch, UnsupportedRules
from .policies import RandomPlayer, easy_actions

BATCH_PLAYERS = ("random", "easy")
CHUNK = 4096  # games played at once


def play_batch(config: SimConfig) -> list[GameResult]:
    """Every game of ``config`` on batches of up to :data:`CHUNK` games, in game order."""
    lineup = config.lineup()
    unknown = sorted(set(lineup) - set(BATCH_PLAYERS))
    if unknown:
        raise SimError(f"--batch plays only {', '.join(BATCH_PLAYERS)}, not {', '.join(unknown)}")
    results: list[GameResult] = []
    for start in range(0, config.games, CHUNK):
        stop = min(config.games, start + CHUNK)
        results += _play_chunk(config, lineup, start, stop)
    return results


def _seed(config: SimConfig, index: int) -> int:
    if config.duplicate:
        return derive_seed(config.seed, config.deal(index), "deal")
    return derive_seed(config.seed, index, "game")


def _play_chunk(
    config: SimConfig, lineup: tuple[str, ...], start: int, stop: int
) -> list[GameResult]:
    n, rows = config.players, np.arange(start, stop)
    seeds = [_seed(config, i) for i in range(start, stop)]
    try:
        batch = Batch(config.rules(), n, stop - start, seeds=seeds)
    except UnsupportedRules as e:
        raise SimError(str(e)) from None
    rng = np.random.default_rng(derive_seed(config.seed, start, "batch"))
    place = (np.arange(n)[None, :] + rows[:, None]) % n  # the lineup place of seat s in game g
    easy_place = np.array([spec == "easy" for spec in lineup])
    random_player = RandomPlayer(batch)
    sums = np.zeros((stop - start, n), dtype=np.int64)
    hand_sums = np.zeros_like(sums)
    calls = np.zeros_like(sums)
    done = np.zeros(stop - start, dtype=np.bool_)
    rounds = np.zeros(stop - start, dtype=np.int64)
    totals = np.zeros_like(sums)
    winners = np.zeros((stop - start, n), dtype=np.bool_)
    while not done.all():
        actor = np.maximum(batch.actor, 0)
        chosen = random_player(rng)
        wants_easy = easy_place[place[np.arange(batch.games), actor]]
        if wants_easy.any():
            chosen = np.where(wants_easy, easy_actions(batch, rng), chosen)
        batch.step(chosen, check=False)
        ended = batch.round_ended & ~done
        sums[ended] += batch.round_scores[ended]
        hand_sums[ended] += batch.hand_totals[ended]
        caller = batch.round_caller
        called = np.flatnonzero(ended & (caller >= 0))
        calls[called, caller[called]] += 1
        rounds[ended] += 1
        finish = ended & (batch.match_ended if config.unit == "match" else True)
        if config.unit == "round":
            scores = batch.round_scores
            winners[finish] = (scores == scores.min(axis=1, keepdims=True))[finish]
            totals[finish] = scores[finish]
        else:
            winners[finish] = batch.winners[finish]
            totals[finish] = batch.totals[finish]
        done |= finish
    return [
        _result(
            i,
            seeds[g],
            lineup,
            place[g],
            rounds[g],
            totals[g],
            winners[g],
            sums[g],
            calls[g],
            hand_sums[g],
        )
        for g, i in enumerate(range(start, stop))
    ]


def _result(
    index: int,
    seed: int,
    lineup: tuple[str, ...],
    place: np.ndarray,
    rounds: int,
    totals: np.ndarray,
    winners: np.ndarray,
    sums: np.ndarray,
    calls: np.ndarray,
    hand_sums: np.ndarray,
) -> GameResult:
    won = tuple(int(s) for s in np.flatnonzero(winners))
    seats = tuple(
        SeatResult(
            seat=s,
            bot=lineup[int(place[s])],
            lineup=int(place[s]),
            total=int(totals[s]),
            share=1 / len(won) if s in won else 0.0,
            rounds=int(rounds),
            round_score_sum=int(sums[s]),
            calls=int(calls[s]),
            hand_total_sum=int(hand_sums[s]),
            faults=0,
        )
        for s in range(len(place))
    )
    return GameResult(index, seed, int(rounds), won, seats)
