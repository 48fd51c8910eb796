"""Golden decisions: every action each bot level takes in a few seeded rounds of every preset.

The ladder's figures follow from the seed, so a change that alters how a bot plays alters them:
wanted or not, it should be seen when it is made.  A change that made the expert's playouts stop
replacing sets changed no test and weakened the expert in cabo for four days, until the ladder
was run again and the history bisected.  This test fails on any change of a bot's decisions and
names the first action that differs.  When the change is intended, regenerate with
``FACEDOWN_UPDATE_GOLDENS=1 pytest tests/bots/test_decisions.py``, say in the commit why the bots
play differently, and measure the ladder steps it touches (docs/bots.md).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from facedown.bots import make_bot, play_round
from facedown.bots.base import Bot
from facedown.engine import PRESETS

from .tables import APPLIED, NotingGame

HERE = Path(__file__).resolve().parent / "goldens"
SEEDS = (1, 2, 3)
# At 2 seats the two searching levels (on an iteration budget: the same on any machine), at 4
# the heuristic levels and the random one.
TABLES = {
    2: (
        ("expert", {"budget_ms": 0, "iterations": 8}),
        ("learned", {"budget_ms": 0, "iterations": 8}),
    ),
    4: (("random", {}), ("easy", {}), ("medium", {}), ("hard", {})),
}


def decisions(preset: str, players: int) -> str:
    """One line per action of each seeded round: the seed, the step and the action."""
    lines = []
    for seed in SEEDS:
        bots: list[Bot] = [
            make_bot(level, seed * 10 + seat, **options)
            for seat, (level, options) in enumerate(TABLES[players])
        ]
        APPLIED.clear()
        play_round(NotingGame(PRESETS[preset], players, seed), bots)
        lines += [
            f"{seed} {step} {a.player} {a.kind} {list(a.slots)} {a.target} {a.target_slot}"
            for step, a in enumerate(APPLIED)
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("players", sorted(TABLES))
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_bots_decide_as_they_did(preset: str, players: int) -> None:
    path = HERE / f"decisions-{preset}-{players}p.txt"
    text = decisions(preset, players)
    if os.environ.get("FACEDOWN_UPDATE_GOLDENS"):
        path.write_text(text, encoding="utf-8")
    if not path.exists():
        pytest.fail(f"{path.name} is missing: FACEDOWN_UPDATE_GOLDENS=1 makes it", pytrace=False)
    golden = path.read_text(encoding="utf-8").splitlines()
    now = text.splitlines()
    for line, (was_line, now_line) in enumerate(zip(golden, now, strict=False)):
        if was_line != now_line:
            pytest.fail(
                f"{path.name}: the bots' decisions changed at line {line + 1} "
                f"(seed, step, action): was {was_line!r}, now {now_line!r} "
                f"({TABLES[players]}). Intended? FACEDOWN_UPDATE_GOLDENS=1 "
                "pytest tests/bots/test_decisions.py, and measure the ladder",
                pytrace=False,
            )
    assert len(golden) == len(now), f"{path.name}: {len(golden)} actions then, {len(now)} now"
