"""Issue 34 §1: what no mode of a preset plays is refused by every way in that names no mode
(a scenario file, ``facedown scenario``, ``facedown sim``), with the engine's message.  The
engine's own refusals (make_ruleset, Ruleset.from_json) are in tests/engine/test_rules.py, the
server's (POST /api/tables through a real server) in tests/server/modes/test_modes_server.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from facedown.scenario import run_scenario

ROOT = Path(__file__).resolve().parent.parent

REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"rounds": 2}, "kivo is 1, 3 or 5 rounds, not 2"),
    ({"rounds": 2, "round_choices": None}, "kivo is 1, 3 or 5 rounds, not 2"),
    ({"score_limit": 50}, "score_limit is null"),
    ({"rounds": 5, "sudden_death": True}, "sudden_death is false"),
]


def _scenario(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": "kivo with rules no mode plays",
        "preset": "kivo",
        "options": options,
        "players": ["ann", "bob"],
        "rounds": [
            {
                "hands": {"ann": ["1", "2", "3", "4"], "bob": ["4", "3", "2", "1"]},
                "discard": "6",
                "actions": [],
            }
        ],
    }


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "facedown", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(("options", "words"), REFUSED)
def test_a_scenario_with_rules_no_mode_plays_is_a_bad_scenario(
    options: dict[str, Any], words: str
) -> None:
    outcome = run_scenario(_scenario(options))
    assert not outcome.passed
    assert outcome.malformed
    assert outcome.failure is not None
    assert words in outcome.failure


def test_the_scenario_command_refuses_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_scenario({"rounds": 2, "round_choices": None})))
    done = _run("scenario", str(path))
    assert done.returncode != 0
    assert "1, 3 or 5 rounds, not 2" in done.stdout + done.stderr


@pytest.mark.parametrize(("options", "words"), REFUSED)
def test_sim_refuses_rules_no_mode_plays(options: dict[str, Any], words: str) -> None:
    done = _run("sim", "--preset", "kivo", "--options", json.dumps(options), "--games", "1")
    assert done.returncode == 2
    assert words in done.stderr


def test_sim_plays_kivo_ranked() -> None:
    ranked = json.dumps({"rounds": 3, "sudden_death": True})
    done = _run("sim", "--preset", "kivo", "--options", ranked, "--players", "3", "--games", "2")
    assert done.returncode == 0, done.stderr
