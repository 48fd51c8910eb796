"""Engine speed: random legal play under each preset, on one core.

The random player chooses uniformly among every legal action of every seat (out-of-turn TAPs
included where the preset has them; opening peeks and next_round count as actions too), with
``random.Random.choice``'s own draws written out in the loop (the same choices, two calls fewer).
Prints actions, turns and rounds per second for 2 and 4 players, mean actions per round, and
the memory of one game state.  ``--trusted`` applies the chosen actions with
``Game.apply_trusted`` (no legality check: they come from the legal lists) instead of ``apply``.
Run: ``python benchmarks/engine.py [--seconds S] [--trusted]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
from dataclasses import dataclass

from facedown.engine import PRESETS, EventKind, Game, Ruleset
from facedown.engine.actions import KINDS

TURN_BEGINS = (EventKind.TURN_STARTED, EventKind.PLAY_STARTED)


@dataclass
class Figures:
    actions: int = 0
    turns: int = 0
    rounds: int = 0
    seconds: float = 0.0


def play(
    rules: Ruleset,
    players: int,
    seconds: float,
    seed: int,
    *,
    trusted: bool = False,
    count_turns: bool = True,
) -> Figures:
    """Play whole matches with a uniform random policy for about ``seconds`` (timed); the
    turns are counted afterwards in an untimed run (none without ``count_turns``)."""
    rng = random.Random(seed)
    bits = rng.getrandbits
    actions = rounds = match = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        match += 1
        game = Game(rules, players, seed * 100_000 + match)
        every = game.all_legal_actions
        apply = game.apply_trusted if trusted else game.apply
        while not game.is_match_over:
            # rng.choice(legal), inline: the same draws from the same stream (Random.choice
            # takes getrandbits(len's bit length) until one is below len), without its two calls.
            legal = every()
            n = len(legal)
            k = n.bit_length()
            r = bits(k)
            while r >= n:
                r = bits(k)
            apply(legal[r])
            actions += 1
        rounds += game.round_no
    elapsed = time.perf_counter() - start
    turns = round(actions * turns_per_action(rules, players, seed)) if count_turns else 0
    return Figures(actions, turns, rounds, elapsed)


def turns_per_action(rules: Ruleset, players: int, seed: int, matches: int = 200) -> float:
    """Turns begun per action applied, counted from events in an untimed run."""
    rng = random.Random(seed)
    actions = turns = 0
    for match in range(matches):
        game = Game(rules, players, match)
        while not game.is_match_over:
            events = game.apply(rng.choice(game.all_legal_actions()))
            actions += 1
            turns += sum(e.kind in TURN_BEGINS for e in events)
    return turns / actions


def state_memory(rules: Ruleset, players: int) -> int:
    """Bytes allocated by one more game state (its deck tables are shared)."""
    Game(rules, players, 0)  # warm the shared caches
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    game = Game(rules, players, 1)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del game
    return after - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="per preset and table size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--trusted", action="store_true", help="apply without checking")
    args = parser.parse_args(argv)
    how = "apply_trusted" if args.trusted else "apply (checked)"
    print(f"Python {sys.version.split()[0]}, one core, uniform random legal play, {how}")
    print(f"actions counted: {', '.join(KINDS)} (every legal action of every seat)")
    header = f"{'preset':8} {'players':>7} {'actions/s':>10} {'turns/s':>9} {'rounds/s':>9}"
    print(header + f" {'actions/round':>13} {'state bytes':>11}")
    for name in args.presets.split(","):
        rules = PRESETS[name]
        for players in (2, 4):
            f = play(rules, players, args.seconds, args.seed, trusted=args.trusted)
            per_round = f.actions / max(f.rounds, 1)
            rate = f.actions / f.seconds
            print(
                f"{name:8} {players:>7} {rate:>10,.0f} {f.turns / f.seconds:>9,.0f}"
                f" {f.rounds / f.seconds:>9,.0f} {per_round:>13.1f}"
                f" {state_memory(rules, players):>11,}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
