"""Golden playthroughs: one whole round with every seat's events and view at every step.

Like OpenSpiel's playthrough files, they make any change of behaviour or of what a seat sees
visible in a diff.  ``tests/goldens/`` holds them; ``tests/test_goldens.py`` checks them.

One thing a line, and every line says where it belongs: ``step N WHAT: DATA``, where ``WHAT``
is ``action`` (the text of the step's action), ``events seat 0``, ``view seat 0``, ``knows seat
0`` ... or ``view spectator``, and ``DATA`` is compact JSON (the action: its text).  Step 0 is the
deal, before any action.  So a diff line names the step and the eyes of the view that changed,
whatever lies around it; :func:`golden_lines` reads a file back.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from ..engine import SPECTATOR, Game, make_ruleset, observe
from ..engine.actions import TAP

# Golden files: (preset, players, seed).
GOLDENS = (
    ("boyo", 2, 3),
    ("boyo", 3, 1),
    ("cabo", 3, 1),
    ("cabo", 4, 7),
    ("kivo", 3, 2),
    ("kaboom", 3, 5),
)


def _line(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def playthrough(preset: str, players: int, seed: int, options: dict[str, Any] | None = None) -> str:
    """The text of one round played by a seeded random policy, every seat's eyes at every step.

    The policy picks a turn action most of the time and an out-of-turn TAP now and then, so that
    the file stays readable and still shows taps.
    """
    rules = make_ruleset(preset, options)
    game = Game(rules, players, seed)
    rng = random.Random(seed)
    seats = [*range(players), SPECTATOR]
    out = [f"# {preset}, {players} players, seed {seed}: one round, every seat's view"]
    out.extend(_views(game, seats, 0))
    step = 0
    while not game.is_round_over:
        pool = game.all_legal_actions()
        taps = [a for a in pool if a.kind == TAP]
        others = [a for a in pool if a.kind != TAP]
        action = rng.choice(taps if taps and (not others or rng.random() < 0.15) else others)
        events = game.apply(action)
        step += 1
        out.append("")
        out.append(f"step {step} action: {action.text()}")
        for seat in seats:
            seen = observe(game, seat, events).events
            out.append(f"step {step} events {_eyes(seat)}: {_line([e.to_json() for e in seen])}")
        out.extend(_views(game, seats, step))
    return "\n".join(out) + "\n"


def _eyes(seat: int) -> str:
    return "spectator" if seat == SPECTATOR else f"seat {seat}"


def _views(game: Game, seats: list[int], step: int) -> list[str]:
    lines = []
    for seat in seats:
        view = observe(game, seat).view
        lines.append(f"step {step} view {_eyes(seat)}: {_line(view.to_json())}")
        if seat != SPECTATOR:
            knows = observe(game, seat, knowledge=True).knowledge
            lines.append(f"step {step} knows {_eyes(seat)}: {_line(dict(knows))}")
    return lines


_LINE = re.compile(r"step (\d+) ([a-z]+(?: seat \d+| spectator)?): (.*)")


def golden_line(line: str) -> tuple[int, str, str] | None:
    """A line of a golden file as (step, what, data), or None for a comment or a blank line.
    ``data`` is the text after the label (JSON but for an ``action`` line)."""
    if not line or line.startswith("#"):
        return None
    found = _LINE.fullmatch(line)
    if found is None:
        raise ValueError(f"not a line of a golden playthrough: {line[:80]!r}")
    return int(found[1]), found[2], found[3]


def golden_lines(text: str) -> dict[tuple[int, str], Any]:
    """A golden file's events, views and knowledge, by (step, "view seat 0" ...), as JSON
    values; its actions as their text, by (step, "action")."""
    out: dict[tuple[int, str], Any] = {}
    for line in text.splitlines():
        parsed = golden_line(line)
        if parsed is not None:
            step, what, data = parsed
            out[step, what] = data if what == "action" else json.loads(data)
    return out
