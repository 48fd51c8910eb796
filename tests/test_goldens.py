"""Golden playthroughs: a whole round, every seat's events and view at every step.

A failing test means behaviour or visibility changed: its message names each line that changed
(the step, and whose events, view or knowledge) and the fields of it that differ.  When the
change is intended, regenerate with ``FACEDOWN_UPDATE_GOLDENS=1 pytest tests/test_goldens.py``
and read the diff (each line of a golden file names its step and whose eyes it is).
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from facedown.devtools.playthrough import GOLDENS, golden_line, playthrough

HERE = Path(__file__).resolve().parent / "goldens"

SHOWN = 12  # changed lines a failure describes (the count of the rest is given)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text  # an action's text


def _fields(was: Any, now: Any) -> list[str]:
    """What differs between two values of one line: the changed fields of a JSON object (the
    whole value otherwise)."""
    if isinstance(was, dict) and isinstance(now, dict):
        return [
            f"    {key}: {json.dumps(was.get(key, '(absent)'))} -> "
            f"{json.dumps(now.get(key, '(absent)'))}"
            for key in sorted(was.keys() | now.keys())
            if was.get(key, ...) != now.get(key, ...)
        ]
    return [f"    was: {json.dumps(was)}", f"    now: {json.dumps(now)}"]


def _label(line: str) -> str:
    parsed = golden_line(line)
    return line if parsed is None else f"step {parsed[0]} {parsed[1]}"


def differences(golden: str, played: str) -> list[str]:
    """Each line that differs between a golden file and the playthrough, described: a line
    changed in place as the fields that changed, a line only one of them has in full."""
    old, new = golden.splitlines(), played.splitlines()
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        pairs = list(zip(old[i1:i2], new[j1:j2], strict=False))
        same_place = [(a, b) for a, b in pairs if _label(a) == _label(b)]
        if tag == "replace" and len(same_place) == len(pairs) == i2 - i1 == j2 - j1:
            for was, now in same_place:
                was_data = golden_line(was)
                now_data = golden_line(now)
                if was_data is None or now_data is None:
                    out.append(f"line changed:\n    was: {was}\n    now: {now}")
                    continue
                changed = _fields(_value(was_data[2]), _value(now_data[2]))
                out.append(f"{_label(was)} changed:\n" + "\n".join(changed))
            continue
        out.extend(f"only in the golden file: {line[:200]}" for line in old[i1:i2])
        out.extend(f"only in the playthrough: {line[:200]}" for line in new[j1:j2])
    return out


@pytest.mark.parametrize(("preset", "players", "seed"), GOLDENS)
def test_golden_playthrough(preset: str, players: int, seed: int) -> None:
    path = HERE / f"{preset}-{players}p-seed{seed}.txt"
    text = playthrough(preset, players, seed)
    if os.environ.get("FACEDOWN_UPDATE_GOLDENS"):
        path.write_text(text, encoding="utf-8")
    golden = path.read_text(encoding="utf-8")
    if golden != text:
        found = differences(golden, text)
        more = f"\n... and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        pytest.fail(
            f"{path.name}: {len(found)} lines differ from the engine's playthrough "
            "(intended? FACEDOWN_UPDATE_GOLDENS=1 pytest tests/test_goldens.py)\n"
            + "\n".join(found[:SHOWN])
            + more,
            pytrace=False,
        )


def test_differences_name_the_view_and_the_fields_that_changed() -> None:
    # The failure message of the golden test: where each change lies and what it is.
    golden = (
        "# a header\n"
        'step 3 action: 0 draw\nstep 3 view seat 1: {"draw_size":39,"held":null}\n'
        'step 3 knows seat 1: {"0:1":"4"}\n'
    )
    played = (
        "# a header\n"
        'step 3 action: 0 draw\nstep 3 view seat 1: {"draw_size":38,"held":null}\n'
        'step 3 knows seat 1: {"0:1":"4"}\nstep 3 view spectator: {}\n'
    )
    assert differences(golden, golden) == []
    assert differences(golden, played) == [
        "step 3 view seat 1 changed:\n    draw_size: 39 -> 38",
        "only in the playthrough: step 3 view spectator: {}",
    ]
