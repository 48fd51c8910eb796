"""What the server checks requests against, taken from the engine and the bots, never repeated.

The engine decides how many players a table seats and whether its deck deals them; the bot
registry decides which bot levels exist.  The server imports those facts here and only here, so
that when the engine's public API changes, this is the one module to re-point.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from ...bots.registry import LEVELS
from ...engine import MAX_PLAYERS, MIN_PLAYERS, Game, Ruleset, find_preset
from ...engine.actions import KINDS
from ...engine.cards import RANKS, rank_of, standard_names, zero_to_thirteen_names
from ...engine.rules import POWERS
from .text import clean, shown

__all__ = [
    "BOT_LEVELS",
    "MAX_PLAYERS",
    "MAX_SEAT",
    "MIN_PLAYERS",
    "ActionKind",
    "BotLevel",
    "check_bot_level",
    "check_options",
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


# ---------------------------------------------------------------- a table's ruleset options

OPTION_TEXT = {"name": 32, "call_name": 24}  # the ruleset's free text fields, their lengths
OPTION_NUMBER = 1_000_000  # an integer option is at most this far from 0
OPTION_CHOICE = 32  # characters of a field that names one of a few choices
_FIELDS = {f.name: str(f.type) for f in dataclasses.fields(Ruleset)}


def card_keys(deck: str) -> frozenset[str]:
    """What a ruleset's ``values`` and ``powers`` may be keyed by for this kind of deck: the
    names of its cards (Jokers included) and their ranks."""
    if deck == "standard":
        names = standard_names(1, True)
        return frozenset(names) | frozenset(rank_of(n) for n in names) | frozenset(RANKS)
    return frozenset(zero_to_thirteen_names())


OPTION_LIST = 16  # numbers in a list option (round_choices)


def check_options(preset: str, options: Mapping[str, Any]) -> None:
    """Raise ValueError, with a message that quotes no more than a few escaped characters of
    what was sent, when ``options`` could never make a ruleset a table should hold: a field
    the ruleset does not have, user text that is too long or holds control characters, a number
    out of bounds, or a card a deck of that kind does not have.  Everything else (a field's
    type, how the fields fit together) the engine checks when it applies them."""
    unknown = [key for key in options if key not in _FIELDS]
    if unknown:
        named = ", ".join(shown(key, 24) for key in unknown[:3])
        more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
        raise ValueError(f"unknown ruleset field(s): {named}{more}")
    deck = options.get("deck", find_preset(preset).deck)
    for key, value in options.items():
        kind = _FIELDS[key]
        if key in OPTION_TEXT and isinstance(value, str):
            try:
                clean(value, OPTION_TEXT[key])
            except ValueError as e:
                raise ValueError(f"{key}: {e}") from None
        elif kind.startswith("dict[") and isinstance(value, dict) and isinstance(deck, str):
            _check_cards(key, value, card_keys(deck))
        elif isinstance(value, str) and len(value) > OPTION_CHOICE:
            raise ValueError(f"{key} must be one of a few short words")
        elif isinstance(value, int) and not isinstance(value, bool):
            _check_number(key, value)
        elif kind.startswith("list[int]") and isinstance(value, list):
            _check_list(key, value)
        elif isinstance(value, list | dict):
            raise ValueError(f"{key} has the wrong type: it is {kind}")


def _check_list(key: str, value: list[Any]) -> None:
    """round_choices: a few numbers (the engine checks what they are)."""
    if len(value) > OPTION_LIST:
        raise ValueError(f"{key} lists at most {OPTION_LIST} numbers")


def _check_number(key: str, value: int) -> None:
    if abs(value) > OPTION_NUMBER:
        raise ValueError(f"{key} must be between -{OPTION_NUMBER} and {OPTION_NUMBER}")


def _check_cards(key: str, table: Mapping[Any, Any], cards: frozenset[str]) -> None:
    """``values`` or ``powers``: keyed by cards the deck has, numbers bounded, a few powers."""
    strangers = [card for card in table if card not in cards]
    if strangers:
        named = ", ".join(shown(str(card), 8) for card in strangers[:3])
        more = f" and {len(strangers) - 3} more" if len(strangers) > 3 else ""
        raise ValueError(f"{key}: no card or rank {named}{more} in this deck")
    numbers = _FIELDS[key].startswith("dict[str, int]")
    for card, entry in table.items():
        if numbers and isinstance(entry, int) and not isinstance(entry, bool):
            _check_number(f"{key}[{card!r}]", entry)
        elif numbers:
            raise ValueError(f"{key}[{card!r}] must be a whole number")
        elif not (
            isinstance(entry, list)
            and len(entry) <= len(POWERS)
            and all(isinstance(p, str) and len(p) <= OPTION_CHOICE for p in entry)
        ):
            raise ValueError(f"{key}[{card!r}] must list powers of {', '.join(POWERS)}")
