"""Every scoreboard case in ``scoreboards/`` passes: paper rounds worked by hand from the rule
texts, scored by the engine's own scoring code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from facedown.records.scorecase import run_case

ROOT = Path(__file__).resolve().parent.parent / "scoreboards"
FILES = sorted(ROOT.rglob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_scoreboard_case(path: Path) -> None:
    outcome = run_case(json.loads(path.read_text(encoding="utf-8")))
    assert outcome.passed, outcome.failure


def test_every_preset_has_cases() -> None:
    for preset in ("boyo", "cabo", "kivo", "kaboom"):
        assert len(list((ROOT / preset).glob("*.json"))) >= 4, preset


def test_a_wrong_expectation_fails() -> None:
    case = json.loads((ROOT / "cabo" / "01-lowest-zero-caller-penalty.json").read_text("utf-8"))
    case["rounds"][0]["scores"]["ann"] = 9  # the caller's +5 forgotten
    outcome = run_case(case)
    assert not outcome.passed
    assert outcome.failure is not None
    assert "round 1: scores" in outcome.failure


def test_the_example_in_the_docs_passes() -> None:
    text = (ROOT.parent / "docs" / "scoreboard.md").read_text(encoding="utf-8")
    example = text.split("```json", 1)[1].split("```", 1)[0]
    outcome = run_case(json.loads(example))
    assert outcome.passed, outcome.failure
