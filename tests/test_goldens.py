"""Golden playthroughs: a whole round, every seat's events and view at every step.

A failing test means behaviour or visibility changed.  Read the diff; when the change is
intended, regenerate with ``FACEDOWN_UPDATE_GOLDENS=1 pytest tests/test_goldens.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from facedown.devtools.playthrough import GOLDENS, playthrough

HERE = Path(__file__).resolve().parent / "goldens"


@pytest.mark.parametrize(("preset", "players", "seed"), GOLDENS)
def test_golden_playthrough(preset: str, players: int, seed: int) -> None:
    path = HERE / f"{preset}-{players}p-seed{seed}.txt"
    text = playthrough(preset, players, seed)
    if os.environ.get("FACEDOWN_UPDATE_GOLDENS"):
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text
