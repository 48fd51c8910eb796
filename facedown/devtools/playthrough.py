"""Golden playthroughs: one whole round with every seat's events and view at every step.

Like OpenSpiel's playthrough files, they make any change of behaviour or of what a seat sees
visible in a diff.  ``tests/goldens/`` holds them; ``tests/test_goldens.py`` checks them.
"""

from __future__ import annotations

import json
import random
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
    out.append(_views(game, seats))
    step = 0
    while not game.is_round_over:
        pool = game.all_legal_actions()
        taps = [a for a in pool if a.kind == TAP]
        others = [a for a in pool if a.kind != TAP]
        action = rng.choice(taps if taps and (not others or rng.random() < 0.15) else others)
        events = game.apply(action)
        step += 1
        out.append(f"\nstep {step}: {action.text()}")
        for seat in seats:
            name = "spectator" if seat == SPECTATOR else f"seat {seat}"
            seen = observe(game, seat, events).events
            out.append(f"  events {name}: {_line([e.to_json() for e in seen])}")
        out.append(_views(game, seats))
    return "\n".join(out) + "\n"


def _views(game: Game, seats: list[int]) -> str:
    lines = []
    for seat in seats:
        seen = observe(game, seat)
        if seat == SPECTATOR:
            lines.append(f"  view spectator: {_line(seen.view.to_json())}")
        else:
            lines.append(f"  view seat {seat}: {_line(seen.view.to_json())}")
            knows = observe(game, seat, knowledge=True).knowledge
            lines.append(f"  knows seat {seat}: {_line(dict(knows))}")
    return "\n".join(lines)
