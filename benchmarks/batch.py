"""The batch's speed: random play over many matches at once, beside the reference engine.

Random play: uniform among the legal actions (sets included), except that a legal call is made
with probability 0.05 and otherwise left out (and a tap, where the rules have TAP, with
probability 0.05).  The batch deals with numpy shuffles and applies without checking
(``RandomPlayer`` draws only legal actions), in two ways: ``step`` (one ``player(rng)`` and one
``batch.step`` per decision, as a learner drives it) and ``fused`` (``RandomPlayer.play``: the
player and the step in one compiled loop).  The engine, in the same run, plays the same policy
with ``Game.apply``.  Turns are turns begun (as ``benchmarks/engine.py`` counts them).  Prints
turns/s by batch size and the memory of one game's arrays.

Then the tournament players, in CPU time (this process's, whatever ``--clock``): rounds per CPU
second of ``facedown sim --batch --unit round`` with every seat ``batch-easy`` (the tournament
of :mod:`facedown.batch.tournament`, the engine's deals, results included), of the engine's
tournament (:func:`facedown.sim.play_chunk`) with every seat the bot level ``easy``, and the
ratio (the batch's player is not that bot: it is the nearest of the bot levels).
Run: ``python -m benchmarks.batch [--preset cabo] [--players 4] [--seconds S] [--sizes ...]``
(``--sizes ''``: the players only).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from facedown.batch import Batch
from facedown.batch.policies import RandomPlayer
from facedown.batch.tournament import CHUNK, play_batch
from facedown.engine import EventKind, Game, Ruleset, make_ruleset
from facedown.sim import SimConfig, play_chunk

SIZES = (1, 64, 1024, 4096, 8192)
clock = time.perf_counter
TURN_BEGINS = (EventKind.TURN_STARTED, EventKind.PLAY_STARTED)


def batch_rate(
    rules: Ruleset, players: int, games: int, seconds: float, *, fused: bool
) -> tuple[float, int]:
    """Turns per second of a batch of ``games``, and its bytes per game (timed).

    ``fused``: the random player and the step in one compiled loop (``RandomPlayer.play``, 50
    decisions per game and call); otherwise one ``player(rng)`` and one ``step`` per decision
    of every game, as a learner drives the batch.
    """
    batch = Batch(rules, players, games, shuffles="numpy", rng=np.random.default_rng(games))
    player = RandomPlayer(batch, call=0.05)
    rng = np.random.default_rng(1)

    def advance() -> None:
        if fused:
            player.play(rng, 50)
        else:
            for _ in range(10):
                batch.step(player(rng), check=False)

    advance()  # warm up: the tables fill, the games leave their first opening
    turns = elapsed = 0.0
    fresh = 0
    while elapsed < seconds:
        before = int(batch.turns.sum())
        start = clock()
        advance()
        elapsed += clock() - start
        turns += int(batch.turns.sum()) - before
        if int(batch.over.sum()) > games // 2:  # a new batch (its making is not timed)
            fresh += 1
            batch = Batch(rules, players, games, shuffles="numpy", rng=np.random.default_rng(fresh))
            player = RandomPlayer(batch, call=0.05)
    return turns / elapsed, batch.memory_bytes() // games


def engine_rate(rules: Ruleset, players: int, seconds: float) -> float:
    """Turns per second of the reference engine under the same policy (timed)."""
    rng = random.Random(1)
    turns = match = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        match += 1
        game = Game(rules, players, match)
        while not game.is_match_over:
            legal = game.all_legal_actions()
            if game.to_act is not None:
                legal += game.set_replaces(game.to_act)
            calls = [a for a in legal if a.kind == "call"]
            rest = [a for a in legal if a.kind != "call"]
            action = calls[0] if calls and (not rest or rng.random() < 0.05) else rng.choice(rest)
            turns += sum(e.kind in TURN_BEGINS for e in game.apply(action))
    return turns / (clock() - start)


def batch_easy_rounds(preset: str, players: int, seconds: float) -> float:
    """Rounds per CPU second of batch tournaments of batch-easy (chunks of :data:`CHUNK`)."""
    play_batch(SimConfig(preset, players, ("batch-easy",), games=8, unit="round"))  # warm up
    rounds, used, seed = 0, 0.0, 0
    while used < seconds:
        config = SimConfig(preset, players, ("batch-easy",), games=CHUNK, seed=seed, unit="round")
        start = time.process_time()
        results = play_batch(config)
        used += time.process_time() - start
        rounds += sum(r.rounds for r in results)
        seed += 1
    return rounds / used


def engine_easy_rounds(preset: str, players: int, seconds: float) -> float:
    """Rounds per CPU second of the engine's tournament of the bot level easy."""
    config = SimConfig(preset, players, ("easy",), games=10**9, unit="round")
    rounds, used, index = 0, 0.0, 0
    while used < seconds:
        start = time.process_time()
        results = play_chunk(config, index, index + 10)
        used += time.process_time() - start
        rounds += sum(r.rounds for r in results)
        index += 10
    return rounds / used


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--preset", default="cabo")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: this process's CPU time (for a machine shared with other work)",
    )
    args = parser.parse_args(argv)
    if args.clock == "cpu":
        global clock
        clock = time.process_time
    rules = make_ruleset(args.preset)
    print(
        f"Python {sys.version.split()[0]}, numpy {np.__version__}, one process, {args.clock} clock"
    )
    print(f"{args.preset}, {args.players} players, random play calling with p=0.05")
    engine = engine_rate(rules, args.players, args.seconds)
    print(f"reference engine (Game.apply): {engine:,.0f} turns/s")
    print(f"{'games':>6} {'step turns/s':>13} {'fused turns/s':>14} {'bytes/game':>10}")
    for size in (int(s) for s in args.sizes.split(",") if s):
        rate, memory = batch_rate(rules, args.players, size, args.seconds, fused=False)
        fused, _ = batch_rate(rules, args.players, size, args.seconds, fused=True)
        print(f"{size:>6} {rate:>13,.0f} {fused:>14,.0f} {memory:>10,}")
    print(f"tournament players, {args.preset}, {args.players} players, rounds per CPU second:")
    engine_easy = engine_easy_rounds(args.preset, args.players, args.seconds)
    print(f"  engine, bot level easy (sim):          {engine_easy:>9,.0f}")
    batch_easy = batch_easy_rounds(args.preset, args.players, args.seconds)
    print(f"  batch, batch-easy (sim --batch):       {batch_easy:>9,.0f}")
    print(f"  ratio batch-easy / engine easy:        {batch_easy / engine_easy:>9,.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
