"""A table's mode, kept in its settings under ``"mode"``: what kind of table it is, and what
each mode turns on or off.

Absent means a Live Private table (everyone at the table now, timers of seconds).
``turn_based`` is a table that lives for days (players act when it is their turn, from any
device; a move deadline of hours).  ``pass_and_play`` is one device passed around a real table
(:mod:`.passplay`): nobody there is remote, so its turns are not timed and no stand-in bot plays
a seat whose player is "away" (a device put to sleep or reloaded leaves every seat away, and
the round waits for it).  Ranked tables have their own module (:mod:`.ranked_mode`).

The rest of the server asks these small functions and never reads the mode itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

MODE: Final = "mode"  # the settings key
TURN_BASED: Final = "turn_based"
PASS_AND_PLAY: Final = "pass_and_play"  # noqa: S105 - a mode's name, no password


def mode_of(settings: Mapping[str, Any]) -> str | None:
    """The table's mode, or None for a Live Private table."""
    mode = settings.get(MODE)
    return mode if isinstance(mode, str) else None


def is_turn_based(settings: Mapping[str, Any]) -> bool:
    """A table that lives for days: players act when it is their turn, from any device."""
    return mode_of(settings) == TURN_BASED


def is_pass_and_play(settings: Mapping[str, Any]) -> bool:
    """One device on a real table, passed from player to player."""
    return mode_of(settings) == PASS_AND_PLAY


def has_timers(settings: Mapping[str, Any]) -> bool:
    """Whether the opening peek, the turns and the reveal are timed (not at pass-and-play)."""
    return not is_pass_and_play(settings)


def has_stand_ins(settings: Mapping[str, Any]) -> bool:
    """Whether a player who leaves is replaced by a bot after a short grace period.  Not at a
    turn-based table (its players are away most of the time, and the move deadline decides) nor
    at pass-and-play (the seats wait for the device)."""
    return not (is_turn_based(settings) or is_pass_and_play(settings))


def shows_recollection(settings: Mapping[str, Any]) -> bool:
    """Whether the table's players are shown what they have learned (Recollection).  Only
    turn-based tables do; Live, Ranked and Real Life tables never do."""
    return is_turn_based(settings)


def engine_mode(settings: Mapping[str, Any]) -> str:
    """The table's mode as the engine's table of modes names it (``facedown.engine.presets.
    MODES``: what each mode sets in the rules, and which options its host may choose)."""
    mode = mode_of(settings)
    return "live" if mode is None else mode
