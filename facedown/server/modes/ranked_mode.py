"""What makes a table a ranked one: its settings' ``mode``, its rules, who hosts it, forfeits.

Small helpers, so that the table, the lobby and the ranked service ask one place.  A table's
mode lives in its settings under ``"mode"`` (absent: a Live Private table; the other modes are
in :mod:`.modes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...engine.presets import mode_options
from .modes import MODE, mode_of

__all__ = [
    "EARLY_FORFEITS",
    "FORFEITS",
    "MODE",
    "RANKED",
    "RANKED_HOST",
    "RANKED_OPTIONS",
    "early_forfeits",
    "forfeits",
    "is_ranked",
    "with_forfeit",
]

RANKED = "ranked"
FORFEITS = "forfeits"  # the settings key of a ranked table's forfeited seats
# ... and of those among them that forfeited before the first round was scored: the match is a
# no-contest for the others (docs/ranked.md, "Throwaway accounts").
EARLY_FORFEITS = "early_forfeits"
# The host of a ranked table: no player, so nobody starts it again, adds a bot or removes a
# seat (player ids are random hex, never this).
RANKED_HOST = "ranked"

# Every preset's ranked match, as the engine's table of modes sets it: exactly three rounds
# under its own scoring, then one sudden-death round among the tied, after which a tie stands as
# a draw (no score limit ends the match early).
RANKED_OPTIONS: dict[str, Any] = mode_options("cabo", RANKED)


def is_ranked(settings: Mapping[str, Any]) -> bool:
    return mode_of(settings) == RANKED


def forfeits(settings: Mapping[str, Any]) -> list[int]:
    """The seats of a ranked table whose players forfeited (left past their grace period)."""
    return [int(seat) for seat in settings.get(FORFEITS, ())]


def early_forfeits(settings: Mapping[str, Any]) -> list[int]:
    """The forfeited seats whose players left before the match's first round was scored."""
    return [int(seat) for seat in settings.get(EARLY_FORFEITS, ())]


def with_forfeit(settings: Mapping[str, Any], seat: int, early: bool = False) -> dict[str, Any]:
    """``settings`` with ``seat`` forfeited (``early``: before the first round was scored)."""
    changed = {**settings, FORFEITS: sorted({*forfeits(settings), seat})}
    if early:
        changed[EARLY_FORFEITS] = sorted({*early_forfeits(settings), seat})
    return changed
