"""The Facedown rules engine: pure, deterministic from (ruleset, seed, actions).

Nothing here does I/O, reads a clock or uses global randomness.
"""

from .actions import Action, ActionFormatError
from .cards import Deck
from .errors import (
    CallNotAllowed,
    IllegalAction,
    InvalidSlot,
    InvalidTarget,
    NotAllowedByRules,
    NotYourTurn,
    PowerUnavailable,
    WrongPhase,
)
from .events import EVERYONE, SPECTATOR, Event
from .game import EMPTY, PHASES, Game, StackedDeal
from .presets import PRESETS, find_preset, make_ruleset
from .rules import Ruleset, RulesetError
from .scoring import RoundResult
from .views import knowledge_json, view

__all__ = [
    "EMPTY",
    "EVERYONE",
    "PHASES",
    "PRESETS",
    "SPECTATOR",
    "Action",
    "ActionFormatError",
    "CallNotAllowed",
    "Deck",
    "Event",
    "Game",
    "IllegalAction",
    "InvalidSlot",
    "InvalidTarget",
    "NotAllowedByRules",
    "NotYourTurn",
    "PowerUnavailable",
    "RoundResult",
    "Ruleset",
    "RulesetError",
    "StackedDeal",
    "WrongPhase",
    "find_preset",
    "knowledge_json",
    "make_ruleset",
    "view",
]
