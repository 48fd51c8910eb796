"""The game: one match of rounds, its legal actions and its transitions, in one object.

A :class:`Game` is deterministic from its ruleset, seed and the actions applied to it.
:meth:`Game.apply` accepts exactly the actions that :meth:`Game.legal_actions` lists, returns the
events they caused, and refuses anything else with a specific
:class:`~facedown.engine.IllegalAction` while changing nothing.  Who must act is
:meth:`Game.awaiting`; what a seat may know is :func:`facedown.engine.observe`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import legality, refusals, snapshot
from .actions import REPLACE, Action
from .arbiter import Awaiting, awaiting
from .deal import StackedDeal, deal_round, new_rng
from .errors import InvalidTarget
from .events import Event
from .interning import tables_for
from .rules import Ruleset
from .scoring import match_places, next_first
from .state import MAX_PLAYERS, MIN_PLAYERS, State
from .transitions import HANDLERS, end_at_limit


class Game(State):
    """A match in progress: the current round's cards, whose turn it is, and the totals."""

    __slots__ = ()

    def __init__(
        self,
        rules: Ruleset,
        players: int,
        seed: int,
        *,
        totals: Sequence[int] | None = None,
        first: int = 0,
        deal: StackedDeal | None = None,
    ) -> None:
        """Start a match and deal its first round (from the seed, or as ``deal`` stacks it)."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
        self.rules = rules
        self.deck = rules.deck_cards
        needed = players * rules.hand_size + 1
        if needed > len(self.deck):
            raise ValueError(
                f"{players} players need {needed} cards; the deck has {len(self.deck)}"
            )
        self.players = players
        self.seed = seed
        self.totals = list(totals) if totals is not None else [0] * players
        if len(self.totals) != players:
            raise ValueError("totals must give one number per player")
        self.hundred_used = [False] * players
        self.history = []
        self.winners = ()
        self.sudden_death_played = False
        self.round_no = 0
        self.first = first
        self.version = 0
        self._tables = tables_for(players, rules)
        self._legal_cache = {}
        self._rng = new_rng()
        self._events = []
        deal_round(self, deal, first)

    def start_round(
        self, deal: StackedDeal | None = None, *, first: int | None = None
    ) -> list[Event]:
        """Deal the next round: shuffled from the seed, or stacked by ``deal``."""
        return deal_round(self, deal, first)

    def clone(self) -> Game:
        """An independent copy (for search and replay checks); interned tables are shared."""
        # Every slot of State, one statement each (a loop of getattr and setattr took three
        # times as long, and the server clones the game at every action); a test checks that
        # none is missing.  The values shared are never changed in place.
        other = Game.__new__(Game)
        other._limit_at = self._limit_at
        other._play_from = self._play_from
        other._rng = self._rng
        other._showing = self._showing
        other._tables = self._tables
        other.caller = self.caller
        other.deck = self.deck
        other.finals_left = self.finals_left
        other.first = self.first
        other.held = self.held
        other.held_from_discard = self.held_from_discard
        other.is_match_over = self.is_match_over
        other.passes = self.passes
        other.pending = self.pending
        other.phase = self.phase
        other.players = self.players
        other.public = self.public
        other.reshuffles = self.reshuffles
        other.round_no = self.round_no
        other.rules = self.rules
        other.seed = self.seed
        other.sudden_death_played = self.sudden_death_played
        other.turn = self.turn
        other.version = self.version
        other.winners = self.winners
        other.hands = [list(h) for h in self.hands]
        other.occ = list(self.occ)
        other.draw_pile = list(self.draw_pile)
        other.discard_pile = list(self.discard_pile)
        other.peeked = list(self.peeked)
        other.known = list(self.known)
        other.totals = list(self.totals)
        other.hundred_used = list(self.hundred_used)
        other.history = list(self.history)
        other._legal_cache = {}
        other._events = []
        # ``_rng`` is shared: it is reseeded before every shuffle, so no stream leaks across.
        return other

    # Who must act, and what is legal: the arbiter and the legality tables.
    def awaiting(self) -> Awaiting:
        """Who the game waits for now, who may TAP out of turn, and which timer runs."""
        return awaiting(self)

    legal_actions = legality.legal_actions
    all_legal_actions = legality.all_legal_actions
    is_legal = legality.is_legal
    set_size = legality.set_size
    set_replaces = legality.set_replaces

    def apply(self, action: Action) -> list[Event]:
        """Apply a legal action and return its events; raise :class:`IllegalAction` otherwise."""
        p = action.player
        legal = self._legal_cache.get(p)
        if legal is None:
            if not (type(p) is int and 0 <= p < self.players):
                raise InvalidTarget(f"there is no seat {p!r} at this table")
            legal = legality.legal_actions(self, p)
        if action not in legal:
            if action.kind == REPLACE and len(action.slots) > 1:
                # A set is a rule, not a list entry: check it without searching the list again.
                if not legality.is_set_replace(self, action):
                    raise refusals.refusal(self, action)
                action = legality.canonical(action)
            else:
                action = legality.canonical(action)
                if action not in legal:
                    raise refusals.refusal(self, action)
        events: list[Event] = []
        self._events = events
        self._showing = None
        # The version first: the round's count of actions is read off it (State.round_actions).
        self.version = version = self.version + 1
        HANDLERS[action.kind](self, action)
        if version >= self._limit_at:  # the round's bound: out of reach outside its play
            end_at_limit(self)
        self._legal_cache = {}  # a new cache: the opening's may be shared (legality)
        return events

    def apply_trusted(self, action: Action) -> list[Event]:
        """Apply one of this very state's :meth:`legal_actions`, :meth:`all_legal_actions` or
        :meth:`set_replaces` (slots in order) unchecked: simulations and search only (anything
        else corrupts the game).  Actions from outside (the server, every player's input) go
        through :meth:`apply`, which checks (an architecture test holds the server to it)."""
        events: list[Event] = []
        self._events = events
        self._showing = None
        # The version first: the round's count of actions is read off it (State.round_actions).
        self.version = version = self.version + 1
        HANDLERS[action.kind](self, action)
        if version >= self._limit_at:  # the round's bound: out of reach outside its play
            end_at_limit(self)
        self._legal_cache = {}  # a new cache: the opening's may be shared (legality)
        return events

    def next_first(self) -> int:
        """Who starts the next round, by the rules: the next seat, or the last round's winner."""
        return next_first(self)

    def places(self) -> list[int]:
        """Each seat's place in the match (1 is best, ties share), sudden death included."""
        return match_places(self)

    # Snapshots: the server's eyes only (they hold the deck order).
    def snapshot(self) -> dict[str, Any]:
        """The complete state as plain data."""
        return snapshot.snapshot(self)

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`snapshot` output (server recovery, search from a sample)."""
        return snapshot.restore(cls, data)
