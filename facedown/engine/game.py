"""The game state: one match of rounds, its legal actions and its transitions.

A :class:`Game` is deterministic from its ruleset, seed and the actions applied to it: shuffles
take their order from ``random.Random`` seeded by (seed, round, reshuffle count), never from
global randomness.  :meth:`Game.apply` accepts exactly the actions that
:meth:`Game.legal_actions` lists, returns the events they caused, and refuses anything else with a
specific :class:`IllegalAction` while changing nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from . import actions as A
from . import events as E
from .actions import Action
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
from .events import Event
from .rules import Ruleset
from .scoring import RoundResult, match_winners, next_first, score_round

# Events are built with tuple.__new__: three times quicker than the NamedTuple constructor.
_ev = tuple.__new__

EMPTY = -1
MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_SET = 4  # the largest set of equal cards a hand can hold in one 0-13 deck

Actions = tuple[Action, ...]  # legal action lists are tuples: interned and shared, never mutated

# Phases of a round.  Play phases are TURN_START to TURN_END: taps are possible only then.
OPENING, TURN_START, HOLDING, TAKEN, POWERS, TURN_END, ROUND_OVER, MATCH_OVER = range(8)
PHASES = (
    "opening",
    "turn_start",
    "holding",
    "taken",
    "powers",
    "turn_end",
    "round_over",
    "match_over",
)


@dataclass(frozen=True)
class StackedDeal:
    """A round's deal fixed in advance (scenarios, tests): the rest of the deck is shuffled."""

    hands: Sequence[Sequence[int]]
    discard: int
    draw_top: Sequence[int] = ()
    first: int | None = None

    @classmethod
    def from_names(
        cls,
        deck: Deck,
        hands: Sequence[Sequence[object]],
        discard: object,
        draw: Sequence[object] = (),
        first: int | None = None,
    ) -> StackedDeal:
        """The deal its card names describe: a name stands for the next physical card of that
        name not dealt yet.  Raises ValueError for a card not in ``deck``, or used up."""
        pool = deck.ids_by_name()

        def take(name: object) -> int:
            ids = pool.get(str(name))
            if not ids:
                raise ValueError(f"card {name!r} is not in the deck, or every one of them is dealt")
            return ids.pop(0)

        dealt = [[take(name) for name in hand] for hand in hands]
        return cls(dealt, take(discard), [take(name) for name in draw], first)


class _Tables:
    """Interned action objects and action lists, shared by a game and its clones.

    The lists are a memo with a bounded size: hands that grow large (failed sets, penalty
    cards) make many distinct lists, and a long-lived process must not keep them all.
    """

    LIMIT = 1024  # lists kept
    LONGEST = 128  # longer lists (large hands with sets) are rare: built each time, not kept

    def __init__(self, players: int) -> None:
        self.simple: dict[tuple[int, str], Action] = {}
        self.lists: dict[Any, Actions] = {}
        for p in range(players):
            for kind in (A.DRAW, A.TAKE_DISCARD, A.DISCARD, A.SKIP, A.END_TURN, A.CALL, A.UNDO):
                self.simple[p, kind] = Action(p, kind)
            self.simple[p, A.NEXT_ROUND] = Action(p, A.NEXT_ROUND)

    def keep(self, key: Any, actions: Actions) -> Actions:
        if len(actions) > self.LONGEST:
            return actions
        if len(self.lists) >= self.LIMIT:
            self.lists.clear()  # rare; the common lists are rebuilt at once
        self.lists[key] = actions
        return actions


_TABLES: dict[tuple[int, str], _Tables] = {}
_TABLES_LIMIT = 64


def _tables_for(players: int, rules: Ruleset) -> _Tables:
    """Interned actions for a table size and ruleset: a memo of immutable values."""
    key = (players, rules.fingerprint)
    found = _TABLES.get(key)
    if found is None:
        if len(_TABLES) >= _TABLES_LIMIT:
            _TABLES.clear()  # many custom rulesets: start again rather than grow
        found = _TABLES[key] = _Tables(players)
    return found


class Game:
    """A match in progress: the current round's cards, whose turn it is, and the totals."""

    __slots__ = (
        "_events",
        "_legal_cache",
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
        "shown",
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
    phase: int
    turn: int
    hands: list[list[int]]
    occ: list[tuple[int, ...]]
    draw_pile: list[int]
    discard_pile: list[int]
    held: int
    held_from_discard: bool
    pending: tuple[str, ...]
    caller: int
    finals_left: int
    passes: int
    peeked: list[bool]
    known: list[int]
    public: int
    reshuffles: int
    totals: list[int]
    hundred_used: list[bool]
    history: list[RoundResult]
    winners: tuple[int, ...]
    sudden_death_played: bool
    shown: tuple[int, tuple[tuple[int, int, int], ...]] | None
    version: int
    _tables: _Tables
    _legal_cache: dict[int, Actions]
    _events: list[Event]

    # ------------------------------------------------------------------ construction
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
        self._tables = _tables_for(players, rules)
        self._legal_cache = {}
        self._events = []
        self.start_round(deal, first=first)

    def start_round(
        self, deal: StackedDeal | None = None, *, first: int | None = None
    ) -> list[Event]:
        """Deal the next round: shuffled from the seed, or stacked by ``deal``."""
        n = self.players
        self.round_no += 1
        if deal is not None and deal.first is not None:
            first = deal.first
        if first is not None:
            if not 0 <= first < n:
                raise ValueError(f"first player {first} is not a seat")
            self.first = first
        order = list(range(len(self.deck)))
        rng = _rng(self.seed, self.round_no, 0)
        size = self.rules.hand_size
        if deal is None:
            _shuffle(rng, order)
            self.hands = [[order.pop() for _ in range(size)] for _ in range(n)]
            discard = order.pop()
            self.draw_pile = order
        else:
            self.hands, discard, self.draw_pile = _stack(deal, n, size, order, rng)
        self.discard_pile = [discard]
        self.occ = [tuple(range(len(h))) for h in self.hands]
        self.held = EMPTY
        self.held_from_discard = False
        self.pending = ()
        self.caller = EMPTY
        self.finals_left = 0
        self.passes = 0
        self.reshuffles = 0
        self.peeked = [False] * n
        self.known = [0] * n
        self.public = 0
        self.shown = None
        self.turn = self.first
        self.version += 1
        self._legal_cache = {}
        events = [
            _ev(Event, (E.ROUND_STARTED, self.first, (), -1, -1, (), (), {"round": self.round_no}))
        ]
        if self.rules.opening_peek == 0:
            self.phase = TURN_START
            events.append(_ev(Event, (E.PLAY_STARTED, self.first, (), -1, -1, (), (), None)))
        else:
            self.phase = OPENING
        return events

    def clone(self) -> Game:
        """An independent copy (for search and replay checks); interned tables are shared."""
        other = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(other, name, getattr(self, name))
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
        return other

    # ------------------------------------------------------------------ queries
    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is, or None outside play (opening peek, round over)."""
        return self.turn if TURN_START <= self.phase <= TURN_END else None

    @property
    def is_round_over(self) -> bool:
        return self.phase >= ROUND_OVER

    @property
    def is_match_over(self) -> bool:
        return self.phase == MATCH_OVER

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

    # ------------------------------------------------------------------ legality
    def legal_actions(self, seat: int) -> Actions:
        """Every action ``seat`` may take now, out-of-turn taps included."""
        cached = self._legal_cache.get(seat)
        if cached is not None:
            return cached
        if not (type(seat) is int and 0 <= seat < self.players):
            return ()  # spectators and strangers may do nothing
        phase = self.phase
        out: Actions
        if TURN_START <= phase <= TURN_END:
            out = self._turn_actions(seat) if seat == self.turn else ()
            if self.rules.tap and self.discard_pile and self.occ[seat]:
                out = out + self._slot_actions(seat, A.TAP)
        elif phase == OPENING:
            out = () if self.peeked[seat] else self._opening_actions(seat)
        elif phase == ROUND_OVER:
            out = (self._tables.simple[seat, A.NEXT_ROUND],)
        else:
            out = ()
        self._legal_cache[seat] = out
        return out

    def all_legal_actions(self) -> Actions:
        """The legal actions of every seat, the turn player's first."""
        phase = self.phase
        if TURN_START <= phase <= TURN_END and not self.rules.tap:
            # Only the turn player can act.
            turn = self.turn
            found = self._legal_cache.get(turn)
            if found is None:
                found = self._legal_cache[turn] = self._turn_actions(turn)
            return found
        if phase == ROUND_OVER:
            return self.legal_actions(self.turn)  # one next_round is enough
        seats = [self.turn] + [s for s in range(self.players) if s != self.turn]
        out: Actions = ()
        for s in seats:
            out += self.legal_actions(s)
        return out

    def _turn_actions(self, p: int) -> Actions:
        rules = self.rules
        phase = self.phase
        if phase == TURN_START:
            discard = self.discard_pile
            key: tuple[Any, ...] = (
                TURN_START,
                p,
                bool(self.draw_pile) or len(discard) >= 2,
                bool(discard and (self.occ[p] or rules.return_taken_discard)),
                rules.call_at_turn_start and self.caller < 0,
            )
        elif phase == HOLDING:
            pending = self.pending
            others = tuple(self.occ) if pending else ()  # targets matter only for powers
            key = (HOLDING, p, self.occ[p], rules.set_replace, pending, others)
        elif phase == TAKEN:
            key = (
                TAKEN,
                p,
                self.occ[p],
                rules.set_replace,
                rules.undo_take_discard,
                rules.return_taken_discard,
            )
        elif phase == POWERS:
            key = (POWERS, p, self.pending, tuple(self.occ))
        else:
            key = (TURN_END, p, rules.call_after_action and self.caller < 0)
        found = self._tables.lists.get(key)
        if found is None:
            found = self._tables.keep(key, self._make_turn_actions(p))
        return found

    def _make_turn_actions(self, p: int) -> Actions:
        rules = self.rules
        simple = self._tables.simple
        phase = self.phase
        if phase == TURN_START:
            out: list[Action] = []
            if self.can_draw():
                out.append(simple[p, A.DRAW])
            if self.discard_pile and (self.occ[p] or rules.return_taken_discard):
                out.append(simple[p, A.TAKE_DISCARD])
            if rules.call_at_turn_start and self.caller < 0:
                out.append(simple[p, A.CALL])
            return tuple(out)
        if phase == HOLDING:
            held = (*self._replace_actions(p), simple[p, A.DISCARD])
            return held + self._power_actions(p) if self.pending else held
        if phase == TAKEN:
            taken = self._replace_actions(p)
            if rules.undo_take_discard:
                taken += (simple[p, A.UNDO],)
            if rules.return_taken_discard or not self.occ[p]:
                taken += (simple[p, A.DISCARD],)
            return taken
        if phase == POWERS:
            return (*self._power_actions(p), simple[p, A.SKIP])
        if rules.call_after_action and self.caller < 0:  # TURN_END
            return (simple[p, A.END_TURN], simple[p, A.CALL])
        return (simple[p, A.END_TURN],)

    def _slot_actions(self, p: int, kind: str) -> Actions:
        key = (kind, p, self.occ[p])
        found = self._tables.lists.get(key)
        if found is None:
            found = self._tables.keep(key, tuple(Action(p, kind, (s,)) for s in self.occ[p]))
        return found

    def _replace_actions(self, p: int) -> Actions:
        key = (A.REPLACE, p, self.occ[p], self.rules.set_replace)
        found = self._tables.lists.get(key)
        if found is None:
            occ = self.occ[p]
            sizes = range(1, MAX_SET + 1) if self.rules.set_replace else (1,)
            found = tuple(Action(p, A.REPLACE, c) for k in sizes for c in combinations(occ, k))
            self._tables.keep(key, found)
        return found

    def _opening_actions(self, p: int) -> Actions:
        key = (A.OPENING_PEEK, p, self.occ[p], self.rules.opening_peek)
        found = self._tables.lists.get(key)
        if found is None:
            found = tuple(
                Action(p, A.OPENING_PEEK, c)
                for c in combinations(self.occ[p], self.rules.opening_peek)
            )
            self._tables.keep(key, found)
        return found

    def _power_actions(self, p: int) -> Actions:
        key = (self.pending, p, tuple(self.occ))
        found = self._tables.lists.get(key)
        if found is None:
            made: list[Action] = []
            others = [t for t in range(self.players) if t != p]
            for power in self.pending:
                if power == A.PEEK:
                    made += [Action(p, A.PEEK, (s,)) for s in self.occ[p]]
                elif power == A.SPY:
                    made += [Action(p, A.SPY, (s,), t) for t in others for s in self.occ[t]]
                else:
                    made += [
                        Action(p, A.SWAP, (s,), t, ts)
                        for s in self.occ[p]
                        for t in others
                        for ts in self.occ[t]
                    ]
            found = self._tables.keep(key, tuple(made))
        return found

    def is_legal(self, action: Action) -> bool:
        """Whether :meth:`apply` would accept ``action`` now."""
        if not (type(action.player) is int and 0 <= action.player < self.players):
            return False
        legal = self.legal_actions(action.player)
        return action in legal or _canonical(action) in legal

    # ------------------------------------------------------------------ transitions
    def apply(self, action: Action) -> list[Event]:
        """Apply a legal action and return its events; raise :class:`IllegalAction` otherwise."""
        p = action.player
        legal = self._legal_cache.get(p)
        if legal is None:
            if not (type(p) is int and 0 <= p < self.players):
                raise InvalidTarget(f"there is no seat {p!r} at this table")
            legal = self.legal_actions(p)
        if action not in legal:
            action = _canonical(action)
            if action not in legal:
                raise self._refusal(action)
        events: list[Event] = []
        self._events = events
        self.shown = None
        _HANDLERS[action.kind](self, action)
        self.version += 1
        self._legal_cache = {}
        return events

    def _pop_draw(self) -> int | None:
        """Take the top card of the draw pile, recycling the discard pile first when needed."""
        if not self.draw_pile:
            if len(self.discard_pile) < 2:
                return None
            top = self.discard_pile.pop()
            recycled = self.discard_pile
            self.reshuffles += 1
            recycled = _shuffle(_rng(self.seed, self.round_no, self.reshuffles), recycled)
            mask = 0
            for c in recycled:
                mask |= 1 << c
            # Cards shuffled into the draw pile are unknown to everyone from now on.
            self.public &= ~mask
            self.known = [k & ~mask for k in self.known]
            self.draw_pile = recycled
            self.discard_pile = [top]
            self._events.append(
                _ev(Event, (E.RESHUFFLED, -1, (), -1, -1, (), (), {"draw_size": len(recycled)}))
            )
        return self.draw_pile.pop()

    def _set_occ(self, p: int) -> None:
        self.occ[p] = tuple(s for s, c in enumerate(self.hands[p]) if c >= 0)

    # -- opening
    def _do_opening_peek(self, a: Action) -> None:
        p = a.player
        self.peeked[p] = True
        hand = self.hands[p]
        seen = tuple([hand[s] for s in a.slots])
        mask = 0
        for c in seen:
            mask |= 1 << c
        self.known[p] |= mask
        self.shown = (p, tuple([(p, s, hand[s]) for s in a.slots]))
        self._events.append(_ev(Event, (E.OPENING_PEEKED, p, a.slots, -1, -1, (), seen, None)))
        if False not in self.peeked:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = TURN_START
        self._events.append(_ev(Event, (E.PLAY_STARTED, self.turn, (), -1, -1, (), (), None)))
        self._check_stuck()

    # -- the turn
    def _do_draw(self, a: Action) -> None:
        p = a.player
        card = self._pop_draw()
        assert card is not None  # legal only when a card can be drawn
        self.held = card
        self.held_from_discard = False
        self.known[p] |= 1 << card
        self.phase = HOLDING
        self.shown = (p, ((EMPTY, EMPTY, card),))
        self._events.append(_ev(Event, (E.DREW, p, (), -1, -1, (), (card,), None)))
        if self.rules.power_timing == "holding":
            self.pending = self.deck.powers[card]

    def _do_take_discard(self, a: Action) -> None:
        card = self.discard_pile.pop()
        self.held = card
        self.held_from_discard = True
        self.public |= 1 << card
        self.phase = TAKEN
        self._events.append(_ev(Event, (E.TOOK_DISCARD, a.player, (), -1, -1, (card,), (), None)))

    def _do_undo(self, a: Action) -> None:
        card = self.held
        self.discard_pile.append(card)
        self.held = EMPTY
        self.phase = TURN_START
        self._events.append(_ev(Event, (E.UNDID, a.player, (), -1, -1, (card,), (), None)))

    def _do_replace(self, a: Action) -> None:
        p = a.player
        hand = self.hands[p]
        slots = a.slots
        card = self.held
        self.held = EMPTY
        self.pending = ()
        ranks = self.deck.ranks
        if len(slots) > 1 and len({ranks[hand[s]] for s in slots}) > 1:
            self._fail_set(p, slots, card)
            return
        out = tuple(hand[s] for s in slots)
        hand[slots[0]] = card
        for s in slots[1:]:
            hand[s] = EMPTY
        if len(slots) > 1:
            self._set_occ(p)
        self.discard_pile.extend(out)
        private = () if self.held_from_discard else (card,)
        self._events.append(_ev(Event, (E.REPLACED, p, slots, -1, -1, out, private, None)))
        self._after_action(p)

    def _fail_set(self, p: int, slots: tuple[int, ...], card: int) -> None:
        hand = self.hands[p]
        for s in slots:
            self.public |= 1 << hand[s]
        shown = tuple(hand[s] for s in slots)
        self.shown = (E.EVERYONE, tuple((p, s, c) for s, c in zip(slots, shown, strict=True)))
        self._events.append(_ev(Event, (E.SET_FAILED, p, slots, -1, -1, shown, (), None)))
        if self.rules.failed_set == "keep_taken":
            hand.append(card)
            self._set_occ(p)
            private = () if self.held_from_discard else (card,)
            public = (card,) if self.held_from_discard else ()
            self._events.append(
                _ev(Event, (E.KEPT, p, (len(hand) - 1,), -1, -1, public, private, None))
            )
            self._after_action(p)
        else:
            self.discard_pile.append(card)
            self._events.append(_ev(Event, (E.DISCARDED, p, (), -1, -1, (card,), (), None)))
            self._end_turn(p)

    def _do_discard(self, a: Action) -> None:
        p = a.player
        card = self.held
        self.held = EMPTY
        self.discard_pile.append(card)
        self._events.append(_ev(Event, (E.DISCARDED, p, (), -1, -1, (card,), (), None)))
        timing_discard = self.rules.power_timing == "discard"
        if timing_discard and not self.held_from_discard and self.deck.powers[card]:
            self.pending = self.deck.powers[card]
            self.phase = POWERS
            return
        self.pending = ()
        self._after_action(p)

    def _use_power(self, p: int, power: str) -> None:
        self.pending = tuple(x for x in self.pending if x != power)
        if self.phase == POWERS and not self.pending:
            self._after_action(p)

    def _do_peek(self, a: Action) -> None:
        p, s = a.player, a.slots[0]
        card = self.hands[p][s]
        self.known[p] |= 1 << card
        self.shown = (p, ((p, s, card),))
        self._events.append(_ev(Event, (E.PEEKED, p, a.slots, -1, -1, (), (card,), None)))
        self._use_power(p, A.PEEK)

    def _do_spy(self, a: Action) -> None:
        p, t, s = a.player, a.target, a.slots[0]
        card = self.hands[t][s]
        self.known[p] |= 1 << card
        self.shown = (p, ((t, s, card),))
        self._events.append(_ev(Event, (E.SPIED, p, (), t, s, (), (card,), None)))
        self._use_power(p, A.SPY)

    def _do_swap(self, a: Action) -> None:
        p, s, t, ts = a.player, a.slots[0], a.target, a.target_slot
        mine, theirs = self.hands[p], self.hands[t]
        mine[s], theirs[ts] = theirs[ts], mine[s]
        self._events.append(_ev(Event, (E.SWAPPED, p, a.slots, t, ts, (), (), None)))
        self._use_power(p, A.SWAP)

    def _do_skip(self, a: Action) -> None:
        self.pending = ()
        self._events.append(_ev(Event, (E.SKIPPED, a.player, (), -1, -1, (), (), None)))
        self._after_action(a.player)

    def _after_action(self, p: int) -> None:
        """The replace or discard is complete: wait for END TURN, or end the turn now."""
        if self.rules.explicit_end_turn:
            self.phase = TURN_END
        else:
            self._end_turn(p)

    def _do_end_turn(self, a: Action) -> None:
        self._end_turn(a.player)

    def _do_call(self, a: Action) -> None:
        p = a.player
        self.caller = p
        self.finals_left = self.players
        self._events.append(_ev(Event, (E.CALLED, p, (), -1, -1, (), (), None)))
        self._end_turn(p)

    def _end_turn(self, p: int) -> None:
        self.pending = ()
        if self.caller >= 0:
            self.finals_left -= 1
            if self.finals_left == 0:
                self._end_round()
                return
        self.turn = (p + 1) % self.players
        self.phase = TURN_START
        self._events.append(_ev(Event, (E.TURN_STARTED, self.turn, (), -1, -1, (), (), None)))
        self._check_stuck()

    def _check_stuck(self) -> None:
        """A player with no possible turn action passes; a whole table of passes ends the round."""
        if self.draw_pile:  # the common case: a card can be drawn
            self.passes = 0
            return
        p = self.turn
        rules = self.rules
        if self.can_draw() or (self.discard_pile and (self.occ[p] or rules.return_taken_discard)):
            self.passes = 0
            return
        if rules.call_at_turn_start and self.caller < 0:
            self.passes = 0
            return
        self.passes += 1
        self._events.append(_ev(Event, (E.PASSED, p, (), -1, -1, (), (), None)))
        if self.passes >= self.players:
            self._end_round()
        else:
            self._end_turn(p)

    # -- taps
    def _do_tap(self, a: Action) -> None:
        p, s = a.player, a.slots[0]
        hand = self.hands[p]
        card = hand[s]
        if self.deck.ranks[card] == self.deck.ranks[self.discard_pile[-1]]:
            hand[s] = EMPTY
            self._set_occ(p)
            self.discard_pile.append(card)
            self._events.append(_ev(Event, (E.TAP_HIT, p, a.slots, -1, -1, (card,), (), None)))
            if self.phase == TURN_START:
                self._check_stuck()  # a hit can empty the turn player's hand
            return
        self.public |= 1 << card
        self.shown = (E.EVERYONE, ((p, s, card),))
        self._events.append(_ev(Event, (E.TAP_MISSED, p, a.slots, -1, -1, (card,), (), None)))
        for _ in range(self.rules.tap_penalty_cards):
            extra = self._pop_draw()
            if extra is None:
                break
            hand.append(extra)
            self._events.append(_ev(Event, (E.PENALTY, p, (len(hand) - 1,), -1, -1, (), (), None)))
        self._set_occ(p)
        if self.phase == TURN_START:
            self._check_stuck()  # a tap can leave the turn player with nothing left to do

    # -- the end of a round
    def _end_round(self) -> None:
        result = score_round(self, self.caller)
        self.history.append(result)
        self.totals = list(result.totals)
        self.hundred_used = list(result.hundred_used)
        self.held = EMPTY
        self.pending = ()
        self._events.append(_ev(Event, (E.ROUND_OVER, -1, (), -1, -1, (), (), {"result": result})))
        winners = match_winners(self)
        if winners is None:
            self.phase = ROUND_OVER
            return
        self.phase = MATCH_OVER
        self.winners = winners
        self._events.append(
            _ev(Event, (E.MATCH_OVER, -1, (), -1, -1, (), (), {"winners": list(winners)}))
        )

    def _do_next_round(self, a: Action) -> None:
        events = self.start_round(first=next_first(self))
        self._events.extend(events)

    # ------------------------------------------------------------------ refusals
    def _refusal(self, a: Action) -> IllegalAction:
        """Say precisely why an action that is not legal now is refused."""
        rules, p, kind, phase = self.rules, a.player, a.kind, self.phase
        if kind not in _HANDLERS:
            return IllegalAction(f"there is no action {kind!r}")
        malformed = _shape_refusal(a)
        if malformed is not None:
            return malformed
        if phase == MATCH_OVER:
            return WrongPhase("the match is over")
        if phase == ROUND_OVER:
            return WrongPhase("the round is over; the next action is next_round")
        if kind == A.NEXT_ROUND:
            return WrongPhase("next_round comes only after a round has ended")
        if phase == OPENING:
            if kind != A.OPENING_PEEK:
                return WrongPhase("play has not started: every player first looks at their cards")
            if self.peeked[p]:
                return WrongPhase("you have already looked at your cards this round")
            return InvalidSlot(
                f"look at exactly {rules.opening_peek} different cards of your own: {list(a.slots)}"
            )
        if kind == A.OPENING_PEEK:
            return WrongPhase("the opening look is over; play has started")
        if kind == A.TAP:
            if not rules.tap:
                return NotAllowedByRules("this table plays without TAP")
            if not self.discard_pile:
                return WrongPhase("there is no discard to tap against")
            return self._slot_refusal(p, a.slots, "tap")
        if p != self.turn:
            return NotYourTurn(f"it is seat {self.turn}'s turn, not seat {p}'s")
        if kind == A.CALL:
            if self.caller >= 0:
                return CallNotAllowed(f"{rules.call_name} has already been called this round")
            when = []
            if rules.call_at_turn_start:
                when.append("at the start of your turn")
            if rules.call_after_action:
                when.append("after your replace or discard")
            return CallNotAllowed(f"{rules.call_name} may be called only {' or '.join(when)}")
        if kind in (A.DRAW, A.TAKE_DISCARD):
            if phase != TURN_START:
                return WrongPhase("you have already drawn or taken a card this turn")
            if kind == A.DRAW:
                return WrongPhase("there is no card left to draw")
            return WrongPhase("you cannot take the discard now")
        if kind == A.UNDO:
            if not rules.undo_take_discard:
                return NotAllowedByRules("this table does not allow undoing a take-discard")
            return WrongPhase("undo is possible only right after taking the discard")
        if kind in (A.REPLACE, A.DISCARD):
            if phase not in (HOLDING, TAKEN):
                return WrongPhase("you hold no card to replace with or discard")
            if kind == A.DISCARD:
                return WrongPhase("a card taken from the discard pile must replace one of yours")
            if len(a.slots) > 1 and not rules.set_replace:
                return NotAllowedByRules("this table does not allow replacing a set of cards")
            return self._slot_refusal(p, a.slots, "replace")
        if kind in (A.PEEK, A.SPY, A.SWAP):
            if a.kind not in self.pending:
                if phase == TAKEN:
                    return PowerUnavailable("a card taken from the discard pile gives no power")
                return PowerUnavailable(f"no {kind} power is available now")
            if kind in (A.SPY, A.SWAP) and (a.target == p or not 0 <= a.target < self.players):
                return InvalidTarget(f"{kind} needs another player at this table")
            if kind == A.SPY:
                return self._slot_refusal(a.target, a.slots, "spy at")
            own = self._slot_refusal(p, a.slots, kind)
            if isinstance(own, InvalidSlot) or kind == A.PEEK:
                return own
            return self._slot_refusal(a.target, (a.target_slot,), "swap with")
        if kind == A.SKIP:
            return PowerUnavailable("there is no power to skip")
        if kind == A.END_TURN:
            if not rules.explicit_end_turn:
                return NotAllowedByRules("turns on this table end by themselves")
            return WrongPhase("finish your replace or discard before ending the turn")
        return IllegalAction(f"{a.text()} is not possible now")

    def _slot_refusal(self, owner: int, slots: tuple[int, ...], what: str) -> IllegalAction:
        hand = self.hands[owner]
        for s in slots:
            if not 0 <= s < len(hand) or hand[s] < 0:
                return InvalidSlot(f"cannot {what} slot {s}: no card lies there")
        if len(set(slots)) != len(slots):
            return InvalidSlot(f"slots must be different: {list(slots)}")
        if len(slots) > MAX_SET:
            return InvalidSlot(f"a set has at most {MAX_SET} cards")
        return IllegalAction(f"cannot {what} {list(slots)} now")

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> dict[str, Any]:
        """The complete state as plain data (the server's eyes only: it holds the deck order)."""
        return {
            "rules": self.rules.to_json(),
            "players": self.players,
            "seed": self.seed,
            "round": self.round_no,
            "first": self.first,
            "phase": PHASES[self.phase],
            "turn": self.turn,
            "hands": [list(h) for h in self.hands],
            "draw_pile": list(self.draw_pile),
            "discard_pile": list(self.discard_pile),
            "held": self.held,
            "held_from_discard": self.held_from_discard,
            "pending": list(self.pending),
            "caller": self.caller,
            "finals_left": self.finals_left,
            "passes": self.passes,
            "peeked": list(self.peeked),
            "known": list(self.known),
            "public": self.public,
            "reshuffles": self.reshuffles,
            "totals": list(self.totals),
            "hundred_used": list(self.hundred_used),
            "history": [r.to_data() for r in self.history],
            "winners": list(self.winners),
            "sudden_death_played": self.sudden_death_played,
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`snapshot` output (server recovery, search from a sample)."""
        rules = Ruleset.from_json(data["rules"])
        game = cls.__new__(cls)
        game.rules = rules
        game.deck = rules.deck_cards
        game.players = players = int(data["players"])
        game.seed = int(data["seed"])
        game.round_no = int(data["round"])
        game.first = int(data["first"])
        game.phase = PHASES.index(data["phase"])
        game.turn = int(data["turn"])
        game.hands = [list(h) for h in data["hands"]]
        game.occ = [tuple(s for s, c in enumerate(h) if c >= 0) for h in game.hands]
        game.draw_pile = list(data["draw_pile"])
        game.discard_pile = list(data["discard_pile"])
        game.held = int(data["held"])
        game.held_from_discard = bool(data["held_from_discard"])
        game.pending = tuple(data["pending"])
        game.caller = int(data["caller"])
        game.finals_left = int(data["finals_left"])
        game.passes = int(data["passes"])
        game.peeked = [bool(x) for x in data["peeked"]]
        game.known = [int(x) for x in data["known"]]
        game.public = int(data["public"])
        game.reshuffles = int(data["reshuffles"])
        game.totals = [int(x) for x in data["totals"]]
        game.hundred_used = [bool(x) for x in data["hundred_used"]]
        game.history = [RoundResult.from_data(r) for r in data["history"]]
        game.winners = tuple(data["winners"])
        game.sudden_death_played = bool(data["sudden_death_played"])
        game.shown = None
        game.version = 0
        game._tables = _tables_for(players, rules)
        game._legal_cache = {}
        game._events = []
        cards = sorted(
            [c for h in game.hands for c in h if c >= 0]
            + game.draw_pile
            + game.discard_pile
            + ([game.held] if game.held >= 0 else [])
        )
        if cards != list(range(len(game.deck))):
            raise ValueError("a snapshot must hold every card of the deck exactly once")
        return game


def _canonical(action: Action) -> Action:
    """Slots of a set or an opening peek are a set: their order does not matter."""
    if action.kind in (A.REPLACE, A.OPENING_PEEK) and len(action.slots) > 1:
        return action._replace(slots=tuple(sorted(action.slots)))
    return action


# Which fields each kind of action takes: (slots, target, target_slot).
_SHAPES: dict[str, tuple[bool, bool, bool]] = {
    A.OPENING_PEEK: (True, False, False),
    A.REPLACE: (True, False, False),
    A.PEEK: (True, False, False),
    A.TAP: (True, False, False),
    A.SPY: (True, True, False),
    A.SWAP: (True, True, True),
}


def _shape_refusal(a: Action) -> IllegalAction | None:
    """An action carrying fields its kind does not take is malformed, whatever the moment."""
    slots, target, target_slot = _SHAPES.get(a.kind, (False, False, False))
    if not slots and a.slots:
        return IllegalAction(f"{a.kind} takes no slot")
    if not target and a.target != -1:
        return IllegalAction(f"{a.kind} takes no target player")
    if not target_slot and a.target_slot != -1:
        return IllegalAction(f"{a.kind} takes no target slot")
    return None


def _rng(seed: int, round_no: int, reshuffle: int) -> random.Random:
    """The generator for one shuffle: a distinct stream per (seed, round, reshuffle)."""
    return random.Random((seed << 40) ^ (round_no << 20) ^ reshuffle)


def _shuffle(rng: random.Random, cards: list[int]) -> list[int]:
    """A uniformly random order of ``cards`` (sorting by random keys: quicker than shuffle)."""
    keys = {c: rng.random() for c in cards}
    cards.sort(key=keys.__getitem__)
    return cards


def _stack(
    deal: StackedDeal, n: int, size: int, order: list[int], rng: random.Random
) -> tuple[list[list[int]], int, list[int]]:
    if len(deal.hands) != n:
        raise ValueError(f"the deal must give {n} hands")
    used = [c for h in deal.hands for c in h] + [deal.discard, *deal.draw_top]
    if len(set(used)) != len(used) or not all(0 <= c < len(order) for c in used):
        raise ValueError("a stacked deal must name distinct cards of the deck")
    hands = [list(h) for h in deal.hands]
    rest = [c for c in order if c not in set(used)]
    rest = _shuffle(rng, rest)
    return hands, deal.discard, rest + list(reversed(deal.draw_top))


_HANDLERS: dict[str, Any] = {
    A.OPENING_PEEK: Game._do_opening_peek,
    A.DRAW: Game._do_draw,
    A.TAKE_DISCARD: Game._do_take_discard,
    A.UNDO: Game._do_undo,
    A.REPLACE: Game._do_replace,
    A.DISCARD: Game._do_discard,
    A.PEEK: Game._do_peek,
    A.SPY: Game._do_spy,
    A.SWAP: Game._do_swap,
    A.SKIP: Game._do_skip,
    A.END_TURN: Game._do_end_turn,
    A.CALL: Game._do_call,
    A.TAP: Game._do_tap,
    A.NEXT_ROUND: Game._do_next_round,
}
