"""How low an opponent's card is that its owner knows, by what the events showed of it.

Players keep the low cards they know, so a search deals an opponent's known card low: as the
lowest of *k* unseen cards (:class:`~facedown.bots.determinize.Sampler`).  The expert's *k* grows
with its own turns played, fitted to opponents it guessed at.  Where it follows the events
(:mod:`facedown.bots.aware`) it knows more of each card: whether its owner put it there by choice
(``chosen``: a drawn or taken card kept) or only looked at it (the opening peek, a peek), and
for how many of the owner's turns it has been kept since (``kept_turns``).  A card just looked
at is as likely as any; one kept through turns, or chosen, is low.

:func:`facedown.keptfit.fit` measures *k* for each (chosen, kept turns) from rounds of `hard`
self-play, in which
seat 0 follows the events: at each of its turn starts, every opponent place whose card the owner
knows and seat 0 does not gives the card's rank among the cards seat 0 has not seen (0 the
lowest, 1 the highest, ties halved); for the lowest of *k* uniform draws the mean rank is
1 / (k + 1), so k = 1 / mean - 1.  A table is one preset at one seat count (3 seats and more
use the 4-seat fit).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .aware import Awareness
from .memory import Place

FORMAT = 1
KEPT_TURNS = 6  # kept turns from this many on are pooled
LowestOf = Callable[[Awareness, Place], float | None]


def table_key(preset: str, players: int) -> str:
    return f"{preset}/{min(players, 4)}"


def cell(chosen: bool, kept: int) -> str:
    """The model's key for a card chosen or not, kept ``kept`` of its owner's turns."""
    return f"{int(chosen)},{min(kept, KEPT_TURNS)}"


@dataclass(frozen=True)
class KeptCards:
    """The fitted *k* of every table, by (chosen, kept turns), and how it was fitted."""

    tables: dict[str, dict[str, float]]
    seed: int = 0
    rounds: int = 0

    def lowest_of(self, preset: str, players: int) -> LowestOf | None:
        """The sampler's *k* for a place at this table, None where the model has no word
        (None for the whole table when it was not fitted)."""
        table = self.tables.get(table_key(preset, players))
        if table is None:
            return None

        def k(aware: Awareness, place: Place) -> float | None:
            kept = aware.kept_turns(place) if place in aware.since else 0
            chosen = place in aware.chosen
            found = table.get(cell(chosen, kept))
            while found is None and kept > 0:  # a cell too rare to fit: the one before it
                kept -= 1
                found = table.get(cell(chosen, kept))
            return found  # None: no cell of its kind was fitted (the sampler's own way)

        return k

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "seed": self.seed, "rounds": self.rounds, "tables": self.tables}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KeptCards:
        if data.get("format") != FORMAT:
            raise ValueError(f"kept-card model format {data.get('format')!r}, not {FORMAT}")
        tables = {t: {c: float(k) for c, k in cells.items()} for t, cells in data["tables"].items()}
        return cls(tables, int(data.get("seed", 0)), int(data.get("rounds", 0)))

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n", "utf-8")

    @classmethod
    def load(cls, path: Path) -> KeptCards:
        return cls.from_json(json.loads(path.read_text("utf-8")))
