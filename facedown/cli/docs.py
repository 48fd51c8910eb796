"""``facedown docs``: regenerate the generated documents (or check that they are current)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .common import CommandError, command_parser

if TYPE_CHECKING:
    from .common import Subparsers

NAME = "docs"
SUMMARY = "regenerate the generated documents (for developers of Facedown)"
EXAMPLE = "facedown docs --check"


def add_parser(sub: Subparsers) -> argparse.ArgumentParser:
    p = command_parser(sub, NAME, SUMMARY, EXAMPLE)
    p.epilog = (
        f"{p.epilog}\n\nIt writes docs/rulesets.md, docs/protocol.md, docs/openapi.json and "
        "web/src/lib/wire.ts."
    )
    p.add_argument("--root", default=".", help="the project's folder")
    p.add_argument("--check", action="store_true", help="fail when a file is out of date")
    return p


def run(args: argparse.Namespace) -> int:
    from ..devtools.docs import GENERATED

    root = Path(args.root)
    missing = [
        f for f in sorted({str(Path(n).parent) for n in GENERATED}) if not (root / f).is_dir()
    ]
    if missing:
        raise CommandError(
            f"{root} is not a checkout of Facedown (no {', '.join(missing)}): "
            "give its folder with --root"
        )
    stale = []
    for name, make in GENERATED.items():
        path = root / name
        text = make()
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if args.check:
            if current != text:
                stale.append(str(path))
        elif current != text:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"out of date: {', '.join(stale)}: run 'facedown docs'", file=sys.stderr)
        return 1
    return 0
