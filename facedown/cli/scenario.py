"""``facedown scenario``: run scenario files (or folders of them), each a rule checked."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .common import command_parser

if TYPE_CHECKING:
    from .common import Subparsers

NAME = "scenario"
SUMMARY = "check a rule: run scenario files (or folders of them)"
EXAMPLE = "facedown scenario scenarios/cabo"


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.add_argument("files", nargs="+", help="scenario files (.json) or folders of them")
    p.add_argument("--json", action="store_true", help="print what actually happened")
    return p


def _scenario_files(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        files += sorted(path.rglob("*.json")) if path.is_dir() else [path]
    return files


def run(args: argparse.Namespace) -> int:
    from ..scenario import run_scenario

    failed = malformed = 0
    records = []
    for path in _scenario_files(args.files):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            print(f"FAIL {path}: cannot read: {e}")
            failed += 1
            malformed += 1
            continue
        outcome = run_scenario(data)
        malformed += outcome.malformed
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
    # 2: a file that is not a scenario (bad input); 1: a scenario whose rule failed.
    return 2 if malformed else 1 if failed else 0
