"""What the server checks requests against, taken from the engine and the bots, never repeated.

The engine decides how many players a table seats and whether its deck deals them; the bot
registry decides which bot levels exist.  The server imports those facts here and only here, so
that when the engine's public API changes, this is the one module to re-point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..bots.registry import LEVELS
from ..engine import MAX_PLAYERS, MIN_PLAYERS, Game, Ruleset
from ..engine.actions import KINDS

__all__ = [
    "BOT_LEVELS",
    "MAX_PLAYERS",
    "MAX_SEAT",
    "MIN_PLAYERS",
    "ActionKind",
    "BotLevel",
    "check_bot_level",
    "check_players",
]

MAX_SEAT = MAX_PLAYERS - 1  # seats are numbered from 0
BOT_LEVELS: tuple[str, ...] = tuple(LEVELS)

if TYPE_CHECKING:
    BotLevel = str
    ActionKind = str
else:
    # Built from the registry and the engine at import time: validation and the JSON Schema
    # list the levels and the kinds of action.
    BotLevel = Literal[BOT_LEVELS]
    ActionKind = Literal[KINDS]


def check_bot_level(level: str) -> None:
    """Raise ValueError, naming ``level`` and the levels there are, when no bot has it."""
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; levels are {', '.join(BOT_LEVELS)}")


def check_players(rules: Ruleset, players: int) -> None:
    """Raise the engine's ValueError when it would not deal a match of ``players`` under
    ``rules`` (too few or too many seats, or a deck too small for the hands)."""
    Game(rules, players, 0)
