"""What makes a table a ranked one: its settings' ``mode``, its rules, who hosts it, forfeits.

Small helpers, so that the table, the lobby and the ranked service ask one place.  A table's
mode lives in its settings under ``"mode"``; what a ranked one changes is its
:class:`~.modes.TableMode` (:data:`~.modes.RANKED_TABLE`).
"""

from __future__ import annotations

from typing import Any, Final

from ...engine.presets import mode_options
from .modes import MODE, RANKED, TableSettings

__all__ = [
    "EARLY_FORFEITS",
    "FORFEITS",
    "MODE",
    "RANKED",
    "RANKED_HOST",
    "RANKED_OPTIONS",
    "early_forfeits",
    "forfeits",
    "with_forfeit",
]

FORFEITS: Final = "forfeits"  # the settings key of a ranked table's forfeited seats
# ... and of those among them that forfeited before the first round was scored: the match is a
# no-contest for the others (docs/ranked.md, "Throwaway accounts").
EARLY_FORFEITS: Final = "early_forfeits"
# The host of a ranked table: no player, so nobody starts it again, adds a bot or removes a
# seat (player ids are random hex, never this).
RANKED_HOST = "ranked"

# Every preset's ranked match, as the engine's table of modes sets it: exactly three rounds
# under its own scoring, then one sudden-death round among the tied, after which a tie stands as
# a draw (no score limit ends the match early).
RANKED_OPTIONS: dict[str, Any] = mode_options("cabo", RANKED)


def forfeits(settings: TableSettings) -> list[int]:
    """The seats of a ranked table whose players forfeited (left past their grace period)."""
    return [int(seat) for seat in settings.get(FORFEITS, ())]


def early_forfeits(settings: TableSettings) -> list[int]:
    """The forfeited seats whose players left before the match's first round was scored."""
    return [int(seat) for seat in settings.get(EARLY_FORFEITS, ())]


def with_forfeit(settings: TableSettings, seat: int, early: bool = False) -> TableSettings:
    """``settings`` with ``seat`` forfeited (``early``: before the first round was scored)."""
    changed: TableSettings = {**settings, FORFEITS: sorted({*forfeits(settings), seat})}
    if early:
        changed[EARLY_FORFEITS] = sorted({*early_forfeits(settings), seat})
    return changed
