"""A round's result: the reveal of every hand and the scores, as plain immutable data."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

# Reasons given with a round score, for the reveal screen and the logs.
LOWEST = "lowest_scores_zero"
CALLER_LOWEST = "caller_lowest"
CALL_PENALTY = "call_penalty"
CALL_DOUBLED = "call_multiplied"
MOON = "shot_the_moon"
MOON_OTHER = "moon_against"
HUNDRED = "hundred_reset"


_set_fields = object.__setattr__


@dataclass(frozen=True)
class RoundResult:
    """A round's reveal: every hand, totals, scores with their reasons, match totals after it."""

    round_no: int
    hands: tuple[tuple[int, ...], ...]
    hand_totals: tuple[int, ...]
    round_scores: tuple[int, ...]
    totals: tuple[int, ...]
    caller: int
    reasons: tuple[tuple[str, ...], ...]
    hundred_used: tuple[bool, ...]

    @classmethod
    def made(
        cls,
        round_no: int,
        hands: tuple[tuple[int, ...], ...],
        hand_totals: tuple[int, ...],
        round_scores: tuple[int, ...],
        totals: tuple[int, ...],
        caller: int,
        reasons: tuple[tuple[str, ...], ...],
        hundred_used: tuple[bool, ...],
    ) -> RoundResult:
        """The value the constructor makes from these fields, made in one step: the frozen
        constructor sets each field through ``object.__setattr__`` (every round's end builds
        one, and that was a fifth of its cost)."""
        result = object.__new__(cls)
        _set_fields(
            result,
            "__dict__",
            {
                "round_no": round_no,
                "hands": hands,
                "hand_totals": hand_totals,
                "round_scores": round_scores,
                "totals": totals,
                "caller": caller,
                "reasons": reasons,
                "hundred_used": hundred_used,
            },
        )
        return result

    def to_data(self) -> dict[str, Any]:
        """Every field as plain data, card ids included (for snapshots)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> RoundResult:
        return cls(
            round_no=int(data["round_no"]),
            hands=tuple(tuple(h) for h in data["hands"]),
            hand_totals=tuple(data["hand_totals"]),
            round_scores=tuple(data["round_scores"]),
            totals=tuple(data["totals"]),
            caller=int(data["caller"]),
            reasons=tuple(tuple(r) for r in data["reasons"]),
            hundred_used=tuple(data["hundred_used"]),
        )
