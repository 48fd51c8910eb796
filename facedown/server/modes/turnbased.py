"""Turn-based tables: the move deadlines a host may choose, and when a seat is forfeited.

A turn-based table keeps ``mode: "turn_based"`` in its settings (see :mod:`.modes`).  Its
opening peek and each turn wait for the move deadline (``turn_seconds`` and ``peek_seconds``,
both the one chosen); when it passes, the server plays the harmless default for the absent
player (:mod:`.defaults`) and counts a missed deadline for that seat.  The third miss in a match
forfeits the seat: a bot plays it to the end of the match.  Misses are marked in the table's
log (``"missed": true`` on the first default move of each miss), so a restarted server counts
them again exactly, as it rebuilds everything else from the log.
"""

from __future__ import annotations

from typing import Final

from ..base.errors import TableError
from .modes import MODE, TURN_BASED, TableSettings

HOUR: Final = 3600
# The deadlines a host chooses from (seconds): an hour to three days; a day by default.
MOVE_DEADLINES: Final = (HOUR, 4 * HOUR, 8 * HOUR, 12 * HOUR, 24 * HOUR, 48 * HOUR, 72 * HOUR)
DEFAULT_DEADLINE: Final = 24 * HOUR
MISSES_TO_FORFEIT: Final = 3
MISSED: Final = "missed"  # the log payload's mark on the first default move of a miss


def turn_based_settings(deadline: float | None) -> TableSettings:
    """A turn-based table's settings (its mode and timers), for a chosen deadline (None: the
    default)."""
    chosen = DEFAULT_DEADLINE if deadline is None else deadline
    if chosen not in MOVE_DEADLINES:
        hours = ", ".join(str(d // HOUR) for d in MOVE_DEADLINES)
        raise TableError(
            "bad_deadline", f"a turn-based table's move deadline is one of {hours} hours"
        )
    seconds = int(chosen)
    return {MODE: TURN_BASED, "peek_seconds": seconds, "turn_seconds": seconds}


def misses_forfeit(misses: int) -> bool:
    """Whether a seat with this many missed deadlines in the match is forfeited."""
    return misses >= MISSES_TO_FORFEIT
