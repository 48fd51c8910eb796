"""A scoreboard for paper games: the players, how the board scores, and the rounds as entered.

The server, the terminal's ``facedown scoreboard`` and the scoreboard cases share this: a
:class:`Board` is scored by :func:`facedown.engine.tally` (the engine's own scoring code) and
shown as JSON or CSV.  Nothing here scores anything itself.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine import PaperRound, Placement, Ruleset, Tally, make_ruleset, tally

MAX_ROUNDS = 200  # rounds a board keeps at most (an evening is a few dozen)


@dataclass(frozen=True)
class Board:
    """A board's players, scoring and rounds (``rules`` is the preset with any options)."""

    names: tuple[str, ...]
    preset: str
    rules: Ruleset
    placement: Placement | None = None
    rounds: tuple[PaperRound, ...] = field(default=())

    @classmethod
    def make(
        cls,
        names: Sequence[str],
        preset: str,
        options: Mapping[str, Any] | None = None,
        placement: Mapping[str, Any] | None = None,
        rounds: Sequence[Mapping[str, Any]] = (),
    ) -> Board:
        """A board from stored or sent data; raises RulesetError or TallyError when it does
        not fit (checked by scoring it)."""
        rules = make_ruleset(preset, dict(options) if options else None)
        places = (
            None
            if placement is None
            else Placement(tuple(int(p) for p in placement["points"]), int(placement["rounds"]))
        )
        board = cls(tuple(names), preset, rules, places, tuple(paper_round(r) for r in rounds))
        board.tally()
        return board

    def tally(self) -> Tally:
        return tally(self.rules, len(self.names), self.rounds, self.placement)

    def with_rounds(self, rounds: Sequence[PaperRound]) -> Board:
        """This board with other rounds, checked by scoring them (raises TallyError)."""
        changed = Board(self.names, self.preset, self.rules, self.placement, tuple(rounds))
        changed.tally()
        return changed

    def placement_json(self) -> dict[str, Any] | None:
        p = self.placement
        return None if p is None else {"points": list(p.points), "rounds": p.rounds}

    def rounds_json(self) -> list[dict[str, Any]]:
        return [round_json(r) for r in self.rounds]

    def to_json(self) -> dict[str, Any]:
        """The board and its scores, as the engine computed them."""
        scored = self.tally()
        rules = self.rules
        return {
            "names": list(self.names),
            "preset": self.preset,
            "call_name": rules.call_name,
            "moon": rules.shoot_the_moon,
            "match_rounds": self.placement.rounds if self.placement else rules.rounds,
            "score_limit": None if self.placement else rules.score_limit,
            "placement": self.placement_json(),
            "rounds": [
                {
                    "number": r.number,
                    **round_json(r.paper),
                    "scores": list(r.round_scores),
                    "places": None if r.places is None else list(r.places),
                    "points": list(r.points),
                    "totals": list(r.totals),
                    "reasons": [list(x) for x in r.reasons],
                    "sudden_death": r.sudden_death,
                }
                for r in scored.rounds
            ],
            "totals": list(scored.totals),
            "over": scored.over,
            "winners": list(scored.winners),
            "next_sudden_death": scored.next_sudden_death,
        }

    def csv_text(self) -> str:
        """The board as CSV: one row per round, then a row of totals."""
        scored = self.tally()
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        header = ["round", "caller", "moon"]
        for name in map(_cell, self.names):
            header += [f"{name} hand", f"{name} score"]
            if self.placement:
                header += [f"{name} place", f"{name} points"]
            header.append(f"{name} total")
        writer.writerow([*header, "winners"])
        for r in scored.rounds:
            row: list[object] = [r.number, self._who(r.paper.caller), self._who(r.paper.moon)]
            for p in range(len(self.names)):
                row += [r.paper.hand_totals[p], r.round_scores[p]]
                if r.places is not None:
                    row += [r.places[p], r.points[p]]
                row.append(r.totals[p])
            writer.writerow(row)
        last: list[object] = ["total", "", ""]
        for total in scored.totals:
            last += ["", "", *(["", ""] if self.placement else []), total]
        last.append(" & ".join(_cell(self.names[p]) for p in scored.winners))
        writer.writerow(last)
        return out.getvalue()

    def _who(self, seat: int) -> str:
        return _cell(self.names[seat]) if seat >= 0 else ""


def _cell(text: str) -> str:
    """A name made safe for a spreadsheet: a leading = + - @ would make it a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def paper_round(data: Mapping[str, Any]) -> PaperRound:
    return PaperRound(
        hand_totals=tuple(int(t) for t in data["hand_totals"]),
        caller=int(data.get("caller", -1)),
        moon=int(data.get("moon", -1)),
    )


def round_json(paper: PaperRound) -> dict[str, Any]:
    return {"hand_totals": list(paper.hand_totals), "caller": paper.caller, "moon": paper.moon}
