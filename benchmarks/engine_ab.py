"""The reference engine against an older commit of itself, in one run: wall clock and instructions.

Both sides play the same fixed workload: ``benchmarks/engine.py``'s uniform random legal play
(a uniform choice from ``game.all_legal_actions()`` then ``game.apply``, legal listing and
checking included; ``--call-choice`` calls ``rng.choice`` for it as the older loop did)
for ``--matches`` whole matches of one preset and table size, from the same seeds, so they play
the very same games (the action counts are checked equal).  The older side is the ``facedown``
package of ``--base`` (taken with ``git archive`` into a temporary folder); each side runs in its
own process, the sides alternating ``--rounds`` times, so a load that comes and goes falls on
both.  Prints each run's actions/s (wall and CPU clock), the median of each side and the ratio.

``--callgrind`` also counts the instructions each side executes for the workload under
``valgrind --tool=callgrind`` (the count of ``--matches`` matches less the count of a run of no
match: the interpreter's start and the imports drop out).  Instruction counts do not depend on
the machine's load, so they compare two versions even on a busy machine.

Run: ``python benchmarks/engine_ab.py [--base REV] [--preset cabo] [--players 4]
[--matches 400] [--rounds 5] [--callgrind] [--call-choice]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = "ebf5bf1^"  # the commit before the engine's first speed change (issue 19)


def workload(
    preset: str,
    players: int,
    matches: int,
    seed: int,
    *,
    count_turns: bool = True,
    call_choice: bool = False,
) -> dict[str, float]:
    """Play ``matches`` matches as benchmarks/engine.py does; actions, turns and seconds.

    ``call_choice``: the loop calls ``rng.choice`` as benchmarks/engine.py did until the choice
    was written out in its loop (the same choices, so the same games).
    """
    import random

    import facedown
    from facedown.engine import PRESETS, EventKind, Game

    rules = PRESETS[preset]
    rng = random.Random(seed)
    choice = rng.choice
    bits = rng.getrandbits
    actions = rounds = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for match in range(1, matches + 1):
        game = Game(rules, players, seed * 100_000 + match)
        every = game.all_legal_actions
        apply = game.apply
        if call_choice:
            while not game.is_match_over:
                apply(choice(every()))
                actions += 1
        else:
            while not game.is_match_over:
                legal = every()
                n = len(legal)
                k = n.bit_length()
                r = bits(k)
                while r >= n:
                    r = bits(k)
                apply(legal[r])
                actions += 1
        rounds += game.round_no
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    # The turns begun, counted untimed on the same games (they are the same on both sides).
    turns = 0
    begins = (EventKind.TURN_STARTED, EventKind.PLAY_STARTED)
    rng = random.Random(seed)
    for match in range(1, matches + 1 if count_turns else 0):
        game = Game(rules, players, seed * 100_000 + match)
        while not game.is_match_over:
            events = game.apply(rng.choice(game.all_legal_actions()))
            turns += sum(e.kind in begins for e in events)
    where = str(Path(facedown.__file__).resolve().parent.parent)
    return {
        "actions": actions,
        "turns": turns,
        "rounds": rounds,
        "wall": wall,
        "cpu": cpu,
        "where": where,  # type: ignore[dict-item]
    }


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} is not installed")
    return found


def side_env(path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(path)
    env["PYTHONHASHSEED"] = "0"
    return env


def run_side(
    path: Path, args: argparse.Namespace, matches: int, prefix: list[str], *, turns: bool = True
) -> str:
    command = [
        *prefix,
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        f"--preset={args.preset}",
        f"--players={args.players}",
        f"--matches={matches}",
        f"--seed={args.seed}",
        *([] if turns else ["--no-turns"]),
        *(["--call-choice"] if args.call_choice else []),
    ]
    done = subprocess.run(
        command, env=side_env(path), capture_output=True, text=True, check=True, cwd=path
    )
    return done.stdout


def callgrind(path: Path, args: argparse.Namespace, matches: int, out: Path) -> int:
    """Instructions executed by a worker playing ``matches`` matches on ``path``'s engine."""
    run_side(
        path,
        args,
        matches,
        [_tool("valgrind"), "--tool=callgrind", f"--callgrind-out-file={out}", "--quiet"],
        turns=False,
    )
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no instruction total in {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", default=BASE, help="the older commit (git revision)")
    parser.add_argument("--preset", default="cabo")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two sides")
    parser.add_argument("--callgrind", action="store_true", help="count instructions too")
    parser.add_argument("--callgrind-matches", type=int, default=60)
    parser.add_argument(
        "--call-choice",
        action="store_true",
        help="the loop calls rng.choice (benchmarks/engine.py's loop before it was written out)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-turns", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(
            json.dumps(
                workload(
                    args.preset,
                    args.players,
                    args.matches,
                    args.seed,
                    count_turns=not args.no_turns,
                    call_choice=args.call_choice,
                )
            )
        )
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = subprocess.run(
            [_tool("git"), "archive", args.base, "facedown"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        subprocess.run([_tool("tar"), "-x", "-C", str(base)], input=archive.stdout, check=True)
        sides = {"base": base, "head": ROOT}
        rev = subprocess.run(
            [_tool("git"), "rev-parse", "--short", args.base],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
        print(f"Python {sys.version.split()[0]}; base {args.base} ({rev}) against the work tree")
        print(
            f"{args.preset}, {args.players} players, {args.matches} matches of uniform random "
            "legal play (all_legal_actions + apply), alternating sides, choice "
            + ("by rng.choice" if args.call_choice else "written out in the loop")
        )
        rates: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        counts: dict[str, tuple[int, int]] = {}
        for r in range(args.rounds):
            for name, path in sides.items():
                got = json.loads(run_side(path, args, args.matches, []))
                if Path(got["where"]) != path.resolve():
                    raise RuntimeError(f"{name} imported facedown from {got['where']}")
                counts[name] = (int(got["actions"]), int(got["turns"]))
                per = got["turns"] / got["actions"]
                rates[name].append((got["actions"] / got["wall"], got["actions"] / got["cpu"]))
                wall, cpu = rates[name][-1]
                print(
                    f"run {r + 1} {name}: {wall:>9,.0f} actions/s wall {cpu:>9,.0f} CPU"
                    f"  ({wall * per:,.0f} turns/s wall)"
                )
        if counts["base"] != counts["head"]:
            raise RuntimeError(f"the sides played different games: {counts}")
        actions, turns = counts["head"]
        print(f"each run: {actions:,} actions, {turns:,} turns")
        med = {
            name: (statistics.median(w for w, _ in got), statistics.median(c for _, c in got))
            for name, got in rates.items()
        }
        per = turns / actions
        for name, (wall, cpu) in med.items():
            print(
                f"median {name}: {wall * per:>9,.0f} turns/s wall, {cpu * per:>9,.0f} turns/s CPU"
            )
        print(
            f"head / base: {med['head'][0] / med['base'][0]:.2f}x wall,"
            f" {med['head'][1] / med['base'][1]:.2f}x CPU"
        )
        if args.callgrind:
            n = args.callgrind_matches
            ir: dict[str, int] = {}
            for name, path in sides.items():
                full = callgrind(path, args, n, Path(tmp) / f"{name}.full")
                empty = callgrind(path, args, 0, Path(tmp) / f"{name}.empty")
                ir[name] = full - empty
                print(f"callgrind {name}: {ir[name]:,} instructions for {n} matches")
            print(f"instructions base / head: {ir['base'] / ir['head']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
