"""The state of a match: plain fields and the questions they answer, no transitions.

:class:`State` holds the current round's cards, whose turn it is and the totals.  The modules
beside it read and change it: :mod:`.deal` deals a round, :mod:`.legality` lists and explains
the legal actions, :mod:`.transitions` applies them, :mod:`.arbiter` says who must act,
:mod:`.snapshot` turns a state into plain data and back.  :class:`~.game.Game` puts them together.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import repeat
from typing import TYPE_CHECKING

from .actions import Action
from .cards import Deck
from .events import DREW, EVERYONE, SPIED
from .phases import OPENING, OVER_PHASES, PLAY_PHASES, Phase
from .results import RoundResult
from .rules import Ruleset

if TYPE_CHECKING:
    from .events import Event
    from .interning import Tables

EMPTY = -1  # an empty place in a hand, no card held, no caller
MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_SET = 4  # the largest set of equal cards a hand can hold in one 0-13 deck
NO_LIMIT = 1 << 62  # a version no game reaches: the round's bound is off outside its play

Actions = tuple[Action, ...]  # legal action lists are tuples: interned and shared, never mutated
Shown = tuple[int, tuple[tuple[int, int, int], ...]]  # (to whom, ((owner, slot, card), ...))


class State:
    """A match in progress.  Cards are ids into ``deck``; ``EMPTY`` (-1) marks no card."""

    __slots__ = (
        "_events",
        "_legal_cache",
        "_limit_at",
        "_play_from",
        "_rng",
        "_showing",
        "_tables",
        "caller",
        "deck",
        "discard_pile",
        "draw_pile",
        "finals_left",
        "first",
        "hands",
        "held",
        "held_from_discard",
        "history",
        "hundred_used",
        "is_match_over",
        "known",
        "occ",
        "passes",
        "peeked",
        "pending",
        "phase",
        "players",
        "public",
        "reshuffles",
        "round_no",
        "rules",
        "seed",
        "sudden_death_played",
        "totals",
        "turn",
        "version",
        "winners",
    )

    rules: Ruleset
    deck: Deck
    players: int
    seed: int
    round_no: int
    first: int
    phase: Phase
    turn: int
    hands: list[list[int]]
    occ: list[tuple[int, ...]]  # each hand's filled slots
    draw_pile: list[int]  # the top card is the last
    discard_pile: list[int]  # the top card is the last
    held: int
    held_from_discard: bool
    pending: tuple[str, ...]  # powers the turn player may still use
    caller: int
    finals_left: int
    passes: int
    peeked: list[bool]
    known: list[int]  # per seat, a bit mask of the card ids it has learned where they lie now
    public: int  # a bit mask of the card ids shown to everyone where they lie now
    reshuffles: int
    totals: list[int]
    hundred_used: list[bool]
    history: list[RoundResult]
    winners: tuple[int, ...]
    sudden_death_played: bool
    # The phase is MATCH_OVER: kept beside the phase (set by the deal, the end of a round and a
    # restore) because every driver asks it after every action; read it, never set it.
    is_match_over: bool
    version: int  # bumped by every change: a cheap "has anything happened" for callers
    # The round's play is counted on the version (rules.round_action_limit).  ``apply`` bumps
    # the version once per action, before carrying it out, so the round has made
    # ``version - _play_from`` actions of its play, and the action that brings the version to
    # ``_limit_at`` is the last one the bound allows: one comparison an action.  When the
    # round ends, ``_play_from`` is set so that the difference stays its count (the version
    # does not move again before the next deal) and ``_limit_at`` goes out of reach.
    _play_from: int
    _limit_at: int
    _tables: Tables
    _legal_cache: dict[int, Actions]
    _rng: random.Random  # the one generator of the match, reseeded for every shuffle
    _events: list[Event]
    # The event of the last action that showed cards (None: it showed none): ``shown`` reads
    # its places off it.  The transitions keep the event, not the places: most are never read.
    _showing: Event | None

    @property
    def shown(self) -> Shown | None:
        """What the last action showed, and to whom (``EVERYONE`` or a seat): ``(owner, slot,
        card)`` for each card shown, the owner ``EMPTY`` for the card drawn (held)."""
        e = self._showing
        if e is None:
            return None
        if e.kind is DREW:
            return (e.player, ((EMPTY, EMPTY, e.private[0]),))
        if e.kind is SPIED:
            return (e.player, ((e.target, e.target_slot, e.private[0]),))
        if e.public:  # a failed set, a missed TAP: shown to everyone
            return (EVERYONE, tuple(zip(repeat(e.player), e.slots, e.public)))
        return (e.player, tuple(zip(repeat(e.player), e.slots, e.private)))  # a look, a peek

    def sudden_seats(self) -> tuple[int, ...]:
        """The seats that play this sudden-death round: those tied for the lowest total after
        the fixed rounds (docs/rules/README.md).  The others sit it out with empty hands and
        keep their totals.  Empty when this round is not a sudden-death round."""
        rounds = self.rules.rounds
        if not self.sudden_death_played or rounds is None or self.round_no <= rounds:
            return ()
        history = self.history
        if history and history[-1].round_no == self.round_no:  # the round is scored
            if len(history) >= 2:
                before: Sequence[int] = history[-2].totals
            else:
                last = history[-1]
                before = [t - s for t, s in zip(last.totals, last.round_scores, strict=True)]
        else:
            before = self.totals
        low = min(before)
        return tuple(p for p, t in enumerate(before) if t == low)

    @property
    def round_actions(self) -> int:
        """The actions of the round's play so far (rules.round_action_limit): every action
        made after the opening look that left the round in play (the action that ended the
        round is not counted, unless the bound ended it)."""
        return 0 if self.phase is OPENING else self.version - self._play_from

    def begin_play(self) -> None:
        """The round's play begins at this version: its count of actions starts from here
        (the last opening look does this inline, as every round comes there)."""
        self._play_from = version = self.version
        self._limit_at = version + self.rules.round_action_limit

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is, or None outside play (opening peek, round over)."""
        return self.turn if self.phase in PLAY_PHASES else None

    @property
    def is_round_over(self) -> bool:
        return self.phase in OVER_PHASES

    @property
    def top_discard(self) -> int:
        """The card id on top of the discard pile, or -1 when the pile is empty."""
        return self.discard_pile[-1] if self.discard_pile else EMPTY

    def can_draw(self) -> bool:
        """A card can be drawn: the draw pile has one, or the discard pile can be recycled."""
        return bool(self.draw_pile) or len(self.discard_pile) >= 2

    def knows(self, seat: int, card: int) -> bool:
        """Whether ``seat`` has legitimately learned the identity of ``card`` where it lies now."""
        return bool(((self.known[seat] | self.public) >> card) & 1)

    def knowledge(self, seat: int) -> dict[tuple[int, int], int]:
        """Every card in a hand that ``seat`` knows, by place (owner, slot)."""
        mask = self.known[seat] | self.public
        out = {}
        for owner, hand in enumerate(self.hands):
            for slot, card in enumerate(hand):
                if card >= 0 and (mask >> card) & 1:
                    out[owner, slot] = card
        return out

    def hand_total(self, seat: int) -> int:
        values = self.deck.values
        return sum(values[c] for c in self.hands[seat] if c >= 0)

    def set_occ(self, seat: int) -> None:
        """Recompute which slots of ``seat``'s hand hold a card."""
        self.occ[seat] = tuple(s for s, c in enumerate(self.hands[seat]) if c >= 0)
