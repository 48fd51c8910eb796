"""A table's mode, kept in its settings under ``"mode"``: what kind of table it is.

Absent means a Live Private table (everyone at the table now, timers of seconds).  Each mode's
checks are small functions here, so that a table, the lobby and the routes ask "is this table
turn-based?" in one way and never look at the settings themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

MODE: Final = "mode"  # the settings key
TURN_BASED: Final = "turn_based"


def mode_of(settings: Mapping[str, Any]) -> str | None:
    """The table's mode, or None for a Live Private table."""
    mode = settings.get(MODE)
    return mode if isinstance(mode, str) else None


def is_turn_based(settings: Mapping[str, Any]) -> bool:
    """A table that lives for days: players act when it is their turn, from any device."""
    return mode_of(settings) == TURN_BASED


def shows_recollection(settings: Mapping[str, Any]) -> bool:
    """Whether the table's players are shown what they have learned (Recollection).  Only
    turn-based tables do; Live, Ranked and Real Life tables never do."""
    return is_turn_based(settings)


def keeps_standins(settings: Mapping[str, Any]) -> bool:
    """Whether a player who leaves is replaced by a bot after a short grace period.  Not at a
    turn-based table: its players are away most of the time, and the move deadline decides."""
    return not is_turn_based(settings)
