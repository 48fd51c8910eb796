"""Replay builds: how much memory and time a long match's replay takes, and what the server's
estimate (``facedown.server.api.replays.replay_bytes``) says of it.

A match is played by random legal play that never calls and TAPs whenever it can (most TAPs
miss), so each round runs to its bound (``round_action_limit``): the kind of match that made a
replay expensive.  For each size the script builds the replay as the server does
(:class:`facedown.records.replay.Replay`) and prints its steps, the bytes tracemalloc saw it keep,
the server's estimate, and the build's wall-clock time.  Run:
``python benchmarks/replay_build.py [--players N] [--preset P]``.
"""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc

from facedown.engine import Action, Game, make_ruleset
from facedown.engine import actions as A
from facedown.records.matches import MatchLog
from facedown.records.replay import Replay
from facedown.server.api.replays import replay_bytes


def long_match(preset: str, players: int, rounds: int, limit: int, seed: int = 1) -> MatchLog:
    """A finished match of ``rounds`` rounds whose players never call and TAP at every chance."""
    rules = make_ruleset(
        preset, {"rounds": rounds, "score_limit": None, "round_action_limit": limit}
    )
    game = Game(rules, players, seed)
    rng = random.Random(seed)
    actions: list[Action] = []
    while not game.is_match_over:
        if game.is_round_over:
            action = Action(0, A.NEXT_ROUND)
        else:
            legal = [a for a in game.all_legal_actions() if a.kind != A.CALL]
            taps = [a for a in legal if a.kind == A.TAP]
            action = rng.choice(taps if taps and rng.random() < 0.6 else legal)
        game.apply(action)
        actions.append(action)
    return MatchLog("bench", 1, rules, players, seed, None, tuple(actions))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="boyo")
    args = parser.parse_args()
    print(f"{args.preset}, {args.players} players, random play that never calls")
    print(f"{'steps':>7} {'kept MB':>8} {'bytes/step':>10} {'estimate MB':>11} {'build s':>8}")
    for rounds, limit in ((1, 2000), (3, 2000), (5, 2000), (10, 2000)):
        match = long_match(args.preset, args.players, rounds, limit)
        tracemalloc.start()
        began = time.perf_counter()
        built = Replay(match)
        took = time.perf_counter() - began
        kept = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        steps = len(built)
        print(
            f"{steps:>7} {kept / 2**20:>8.1f} {kept / steps:>10.0f} "
            f"{replay_bytes(built) / 2**20:>11.1f} {took:>8.2f}"
        )
        del built


if __name__ == "__main__":
    main()
