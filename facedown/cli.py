"""The ``facedown`` command: a thin layer over the library (the library never imports it)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path


def _scenario_files(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        files += sorted(path.rglob("*.json")) if path.is_dir() else [path]
    return files


def cmd_scenario(args: argparse.Namespace) -> int:
    from .scenario import run_scenario

    failed = 0
    records = []
    for path in _scenario_files(args.files):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            print(f"FAIL {path}: cannot read: {e}")
            failed += 1
            continue
        outcome = run_scenario(data)
        if args.json:
            records.append({"file": str(path), "passed": outcome.passed, **outcome.record})
            if outcome.failure:
                records[-1]["failure"] = outcome.failure
        elif outcome.passed:
            print(f"PASS {path}: {outcome.name}")
        else:
            print(f"FAIL {path}: {outcome.name}\n     {outcome.failure}")
        failed += not outcome.passed
    if args.json:
        json.dump(records if len(records) != 1 else records[0], sys.stdout, indent=2)
        print()
    elif len(_scenario_files(args.files)) > 1:
        total = len(_scenario_files(args.files))
        print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


def cmd_play(args: argparse.Namespace) -> int:
    from .terminal import play

    return play(args.preset, players=args.players, seed=args.seed, bots=args.bots)


def cmd_docs(args: argparse.Namespace) -> int:
    from .docs import rulesets_markdown

    text = rulesets_markdown()
    if args.check:
        current = (
            Path(args.output).read_text(encoding="utf-8") if Path(args.output).exists() else ""
        )
        if current != text:
            print(f"{args.output} is out of date: run 'facedown docs'", file=sys.stderr)
            return 1
        return 0
    Path(args.output).write_text(text, encoding="utf-8")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="facedown", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("scenario", help="run scenario files (or folders of them)")
    p.add_argument("files", nargs="+")
    p.add_argument("--json", action="store_true", help="print what actually happened")
    p.set_defaults(func=cmd_scenario)

    p = sub.add_parser("play", help="play in the terminal against random players")
    p.add_argument("--preset", default="cabo", choices=["boyo", "cabo", "kivo", "kaboom"])
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--bots", default="random", help="bot level of the other seats")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("docs", help="write docs/rulesets.md from the code")
    p.add_argument("--output", default="docs/rulesets.md")
    p.add_argument("--check", action="store_true", help="fail when the file is out of date")
    p.set_defaults(func=cmd_docs)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
