"""The Facedown rules engine: pure, deterministic from (ruleset, seed, actions).

Nothing here does I/O, reads a clock or uses global randomness.  The public surface, in the
order a newcomer needs it:

- :class:`Game` — a match: ``Game(rules, players, seed)``, ``apply(action)`` returns events,
  ``legal_actions(seat)``.
- the arbiter, ``Game.awaiting()`` — an :class:`Awaiting`: which seats the game waits for,
  which may TAP out of turn, and which :class:`Timer` runs.  Nothing outside the engine works
  out whose move it is.
- the observer, :func:`observe` — an :class:`Observation`: everything one seat may know now
  (its :class:`View`, the events given rendered for it as :class:`SeenEvent`, its legal
  actions).  Nothing outside the engine decides what a seat may see.  :func:`observe_json`
  is its JSON form made directly (what the server sends), :func:`public_json` the part of
  every seat's view that is the same for all, :func:`reveal_json` a round's reveal (made once).
- :class:`Action` and its kinds (:mod:`facedown.engine.actions`), :class:`Event` and
  :class:`EventKind`, :class:`Phase`, :class:`Ruleset` and the :data:`PRESETS`, the errors.
- the paper scoreboard, :func:`tally` — a :class:`Tally` of :class:`PaperRound` s (hand totals,
  caller, moon) scored by the same code as the engine's rounds, or by :class:`Placement` points.
"""

from . import actions
from .actions import Action, ActionFormatError
from .arbiter import Awaiting, Timer
from .cards import Deck
from .deal import StackedDeal, shuffle_rng
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
from .events import EVERYONE, SPECTATOR, Event, EventKind
from .game import Game
from .observer import (
    Observation,
    Reveal,
    SeenEvent,
    View,
    observe,
    place,
    reveal_json,
    seen_event,
    view,
)
from .observer_json import observe_json, public_json
from .paper import PaperRound, Placement, ScoredRound, Tally, TallyError, tally
from .phases import PLAY_PHASES, Phase
from .presets import PRESETS, find_preset, make_ruleset
from .results import RoundResult
from .rules import Ruleset, RulesetError
from .state import EMPTY, MAX_PLAYERS, MAX_SET, MIN_PLAYERS

__all__ = [
    "EMPTY",
    "EVERYONE",
    "MAX_PLAYERS",
    "MAX_SET",
    "MIN_PLAYERS",
    "PLAY_PHASES",
    "PRESETS",
    "SPECTATOR",
    "Action",
    "ActionFormatError",
    "Awaiting",
    "CallNotAllowed",
    "Deck",
    "Event",
    "EventKind",
    "Game",
    "IllegalAction",
    "InvalidSlot",
    "InvalidTarget",
    "NotAllowedByRules",
    "NotYourTurn",
    "Observation",
    "PaperRound",
    "Phase",
    "Placement",
    "PowerUnavailable",
    "Reveal",
    "RoundResult",
    "Ruleset",
    "RulesetError",
    "ScoredRound",
    "SeenEvent",
    "StackedDeal",
    "Tally",
    "TallyError",
    "Timer",
    "View",
    "WrongPhase",
    "actions",
    "find_preset",
    "make_ruleset",
    "observe",
    "observe_json",
    "place",
    "public_json",
    "reveal_json",
    "seen_event",
    "shuffle_rng",
    "tally",
    "view",
]
