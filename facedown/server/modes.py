"""A table's mode: the ``mode`` key of its settings, and what each mode turns on or off.

No mode is a live private table.  ``pass_and_play`` is one device passed around a real table
(:mod:`.passplay`): nobody there is remote, so its turns are not timed (a turn lasts as long as
passing the device and thinking take) and no stand-in bot plays a seat whose player is "away"
(a device put to sleep or reloaded leaves every seat away, and the round waits for it).

The rest of the server asks these small functions and never reads the mode itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MODE = "mode"  # the settings key of a table's mode
PASS_AND_PLAY = "pass_and_play"  # noqa: S105 - a mode's name, no password


def mode_of(settings: Mapping[str, Any]) -> str | None:
    """The table's mode (None: a live private table)."""
    mode = settings.get(MODE)
    return mode if isinstance(mode, str) else None


def is_pass_and_play(settings: Mapping[str, Any]) -> bool:
    return mode_of(settings) == PASS_AND_PLAY


def has_timers(settings: Mapping[str, Any]) -> bool:
    """Whether the opening peek, the turns and the reveal are timed (not at pass-and-play)."""
    return not is_pass_and_play(settings)


def has_stand_ins(settings: Mapping[str, Any]) -> bool:
    """Whether a bot plays the seat of a player away past the grace period (not at
    pass-and-play: the seats wait for the device)."""
    return not is_pass_and_play(settings)
