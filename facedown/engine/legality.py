"""Legality: which actions a seat may take now, and why any other action is refused.

One table, :data:`WHEN`, says for every kind of action in which phases it can be legal, whether
only the turn player may take it, and which ruleset field it needs.  :func:`legal_actions` builds
its lists from it, and :func:`.refusals.refusal` explains a refused action from the same table
and from the same availability checks, so the two cannot disagree.

Sets are a rule, not a list: where the ruleset has ``set_replace``, the turn player holding a
card may replace any 2 to :data:`MAX_SET` of its own cards (:func:`set_size` says how many at
most; :func:`set_replaces` lists them for who wants every one).  The legal lists name single
replaces only, so no list grows with the number of combinations of a hand's cards.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from itertools import combinations
from typing import Any, NamedTuple

from . import actions as A
from .actions import Action
from .errors import (
    CallNotAllowed,
    IllegalAction,
    PowerUnavailable,
    WrongPhase,
)
from .phases import (
    HOLDING,
    OPENING,
    PLAY_PHASES,
    POWERS,
    ROUND_OVER,
    TAKEN,
    TURN_END,
    TURN_START,
    Phase,
)
from .state import MAX_SET, Actions, State


class When(NamedTuple):
    """When a kind of action can be legal."""

    phases: Collection[Phase]
    turn_only: bool  # only the turn player may take it
    rule: str | None  # the ruleset field (a bool) without which the table has no such action
    no_rule: str  # the refusal when the ruleset lacks it
    wrong_phase: tuple[type[IllegalAction], str] | None  # the refusal outside ``phases``
    # (None: the kind's availability check explains it)


_POWER_PHASES = (HOLDING, POWERS)
_NOT_HOLDING = (WrongPhase, "you hold no card to replace with or discard")
WHEN: dict[str, When] = {
    A.OPENING_PEEK: When(
        (OPENING,), False, None, "", (WrongPhase, "the opening look is over; play has started")
    ),
    A.DRAW: When(
        (TURN_START,),
        True,
        None,
        "",
        (WrongPhase, "you have already drawn or taken a card this turn"),
    ),
    A.TAKE_DISCARD: When(
        (TURN_START,),
        True,
        None,
        "",
        (WrongPhase, "you have already drawn or taken a card this turn"),
    ),
    A.UNDO: When(
        (TAKEN,),
        True,
        "undo_take_discard",
        "this table does not allow undoing a take-discard",
        (WrongPhase, "undo is possible only right after taking the discard"),
    ),
    A.REPLACE: When(
        (HOLDING, TAKEN),
        True,
        None,
        "",
        _NOT_HOLDING,
    ),
    A.DISCARD: When(
        (HOLDING, TAKEN),
        True,
        None,
        "",
        _NOT_HOLDING,
    ),
    A.PEEK: When(_POWER_PHASES, True, None, "", None),
    A.SPY: When(_POWER_PHASES, True, None, "", None),
    A.SWAP: When(_POWER_PHASES, True, None, "", None),
    A.SKIP: When((POWERS,), True, None, "", (PowerUnavailable, "there is no power to skip")),
    A.END_TURN: When(
        (TURN_END,),
        True,
        "explicit_end_turn",
        "turns on this table end by themselves",
        (WrongPhase, "finish your replace or discard before ending the turn"),
    ),
    A.CALL: When((TURN_START, TURN_END), True, None, "", None),
    A.TAP: When(PLAY_PHASES, False, "tap", "this table plays without TAP", None),
    A.NEXT_ROUND: When(
        (ROUND_OVER,),
        False,
        None,
        "",
        (WrongPhase, "next_round comes only after a round has ended"),
    ),
}

# The turn player's kinds in each phase, in the order their actions are listed; POWERS_DUE
# stands for the powers still to use, in the order the card gives them.
POWERS_DUE = "powers due"
TURN_KINDS: dict[Phase, tuple[str, ...]] = {
    TURN_START: (A.DRAW, A.TAKE_DISCARD, A.CALL),
    HOLDING: (A.REPLACE, A.DISCARD, POWERS_DUE),
    TAKEN: (A.REPLACE, A.UNDO, A.DISCARD),
    POWERS: (POWERS_DUE, A.SKIP),
    TURN_END: (A.END_TURN, A.CALL),
}


# ---------------------------------------------------------------------- availability
# Each check says why a kind, in one of its phases and for the right seat, is not available now
# (None: it is).  Building the lists and explaining refusals both go through them.
Check = Callable[[State, int], IllegalAction | None]


def _draw_check(g: State, p: int) -> IllegalAction | None:
    return None if g.can_draw() else WrongPhase("there is no card left to draw")


def _take_check(g: State, p: int) -> IllegalAction | None:
    if g.discard_pile and (g.occ[p] or g.rules.return_taken_discard):
        return None
    return WrongPhase("you cannot take the discard now")


def _call_check(g: State, p: int) -> IllegalAction | None:
    rules = g.rules
    if g.caller >= 0:
        return CallNotAllowed(f"{rules.call_name} has already been called this round")
    phase = g.phase
    if (phase is TURN_START and rules.call_at_turn_start) or (
        phase is TURN_END and rules.call_after_action
    ):
        return None
    when = []
    if rules.call_at_turn_start:
        when.append("at the start of your turn")
    if rules.call_after_action:
        when.append("after your replace or discard")
    return CallNotAllowed(f"{rules.call_name} may be called only {' or '.join(when)}")


def _discard_check(g: State, p: int) -> IllegalAction | None:
    if g.phase is HOLDING or g.rules.return_taken_discard or not g.occ[p]:
        return None
    return WrongPhase("a card taken from the discard pile must replace one of yours")


def _power_check(power: str) -> Check:
    def check(g: State, p: int) -> IllegalAction | None:
        if power in g.pending:
            return None
        if g.phase is TAKEN:
            return PowerUnavailable("a card taken from the discard pile gives no power")
        return PowerUnavailable(f"no {power} power is available now")

    return check


def _tap_check(g: State, p: int) -> IllegalAction | None:
    return None if g.discard_pile else WrongPhase("there is no discard to tap against")


def _always(g: State, p: int) -> IllegalAction | None:
    return None


CHECKS: dict[str, Check] = {
    A.DRAW: _draw_check,
    A.TAKE_DISCARD: _take_check,
    A.CALL: _call_check,
    A.DISCARD: _discard_check,
    A.PEEK: _power_check(A.PEEK),
    A.SPY: _power_check(A.SPY),
    A.SWAP: _power_check(A.SWAP),
    A.TAP: _tap_check,
}


def _available(g: State, p: int, kind: str) -> bool:
    rule = WHEN[kind].rule
    if rule is not None and not getattr(g.rules, rule):
        return False
    return CHECKS.get(kind, _always)(g, p) is None


# ---------------------------------------------------------------------- legal actions
def legal_actions(g: State, seat: int) -> Actions:
    """Every action ``seat`` may take now, out-of-turn taps included."""
    cached = g._legal_cache.get(seat)
    if cached is not None:
        return cached
    if not (type(seat) is int and 0 <= seat < g.players):
        return ()  # spectators and strangers may do nothing
    phase = g.phase
    out: Actions
    if phase in PLAY_PHASES:
        out = turn_actions(g, seat) if seat == g.turn else ()
        if g.rules.tap and g.discard_pile and g.occ[seat]:
            out = out + _slot_actions(g, seat, A.TAP)
    elif phase is OPENING:
        out = () if g.peeked[seat] else _opening_actions(g, seat)
    elif phase is ROUND_OVER:
        out = (g._tables.simple[seat, A.NEXT_ROUND],)
    else:
        out = ()
    g._legal_cache[seat] = out
    return out


def all_legal_actions(g: State) -> Actions:
    """The legal actions of every seat, the turn player's first."""
    phase = g.phase
    if phase in PLAY_PHASES and not g.rules.tap:
        # Only the turn player can act.  Its list (interned: a lookup) fills the legal cache
        # that apply checks against, without asking the cache first: drivers ask once per state.
        turn = g.turn
        found = g._legal_cache[turn] = turn_actions(g, turn)
        return found
    if phase is ROUND_OVER:
        return legal_actions(g, g.turn)  # one next_round is enough
    if phase is OPENING:
        # Interned like the turn lists: the looks still to take depend on these alone.  Each
        # seat's own list comes with them: that dict, shared, is the state's legal cache until
        # the next change (it holds every seat, so nothing is written into it; a change gives
        # the state a new cache rather than clearing this one).
        # One flat tuple: the turn, each seat's look taken or not, each seat's filled slots (as
        # many of each as the table has seats: keys of different states never run together).
        key = (g.turn, *g.peeked, *g.occ)
        opening = g._tables.openings.get(key)
        if opening is None:
            opening = g._tables.keep_opening(key, _every_seat(g), _each_seat(g))
        g._legal_cache = opening[1]
        return opening[0]
    return _every_seat(g)


def _each_seat(g: State) -> dict[int, Actions]:
    """Each seat's legal actions, by seat (a helper: a comprehension over ``g`` in the caller
    would make ``g`` a cell variable there, slower at every use)."""
    return {s: legal_actions(g, s) for s in range(g.players)}


def _every_seat(g: State) -> Actions:
    out: Actions = legal_actions(g, g.turn)
    for s in range(g.players):
        if s != g.turn:
            out += legal_actions(g, s)
    return out


def is_legal(g: State, action: Action) -> bool:
    """Whether :meth:`~facedown.engine.Game.apply` would accept ``action`` now."""
    if not (type(action.player) is int and 0 <= action.player < g.players):
        return False
    legal = legal_actions(g, action.player)
    return action in legal or canonical(action) in legal or is_set_replace(g, action)


def set_size(g: State, seat: int) -> int:
    """The most cards ``seat`` may replace as one set now (0: no set may be replaced)."""
    if not g.rules.set_replace or seat != g.turn or not (g.phase is HOLDING or g.phase is TAKEN):
        return 0
    filled = len(g.occ[seat])
    return min(MAX_SET, filled) if filled >= 2 else 0


def is_set_replace(g: State, a: Action) -> bool:
    """``a`` replaces a set of 2 or more distinct filled own slots, as the rules allow now."""
    slots = a.slots
    if a.kind != A.REPLACE or len(slots) < 2 or a.target != -1 or a.target_slot != -1:
        return False
    if not (type(a.player) is int and 0 <= a.player < g.players):
        return False
    if len(slots) > set_size(g, a.player) or len(set(slots)) != len(slots):
        return False
    occ = g.occ[a.player]
    return all(s in occ for s in slots)


def set_replaces(g: State, seat: int) -> Actions:
    """Every set replace ``seat`` may take now (combinations of its cards: can be many)."""
    largest = set_size(g, seat)
    if not largest:
        return ()
    occ = g.occ[seat]
    return tuple(
        Action(seat, A.REPLACE, c) for k in range(2, largest + 1) for c in combinations(occ, k)
    )


def turn_actions(g: State, p: int) -> Actions:
    """The turn player's actions now (interned: the key holds all they depend on)."""
    # The memo is the ruleset's own (one per ruleset and table size): a key holds what the list
    # depends on in the state, never a ruleset field.  (Conditional expressions, not bool():
    # no call in the common case.)  A turn start's key is an int, the seat and three flags
    # (building, hashing and comparing a tuple cost more than the lookup); the others are
    # tuples, which no int equals.
    phase = g.phase
    key: Any
    if phase is TURN_START:
        discard = g.discard_pile
        key = (
            p << 3
            | (4 if g.draw_pile or len(discard) >= 2 else 0)  # a card can be drawn
            | (2 if discard and (g.occ[p] or g.rules.return_taken_discard) else 0)
            | (1 if g.caller < 0 else 0)  # no call yet
        )
    elif phase is HOLDING:
        pending = g.pending
        # Targets matter only for powers.
        key = (HOLDING, p, g.occ[p], pending, tuple(g.occ)) if pending else (HOLDING, p, g.occ[p])
    elif phase is TAKEN:
        key = (TAKEN, p, g.occ[p])
    elif phase is POWERS:
        key = (POWERS, p, g.pending, tuple(g.occ))
    else:
        key = (TURN_END, p, g.caller < 0)
    found = g._tables.lists.get(key)
    if found is None:
        made: list[Action] = []
        for kind in TURN_KINDS[phase]:
            if kind is POWERS_DUE:
                for power in g.pending:
                    made += _MAKERS[power](g, p)
            elif _available(g, p, kind):
                made += _MAKERS[kind](g, p)
        found = g._tables.keep(key, tuple(made))
    return found


def _simple(kind: str) -> Callable[[State, int], Actions]:
    def make(g: State, p: int) -> Actions:
        return (g._tables.simple[p, kind],)

    return make


def _slot_actions(g: State, p: int, kind: str) -> Actions:
    key = (kind, p, g.occ[p])
    found = g._tables.lists.get(key)
    if found is None:
        found = g._tables.keep(key, _one_slot_each(p, kind, g.occ[p]))
    return found


def _one_slot_each(p: int, kind: str, slots: tuple[int, ...]) -> Actions:
    """``kind`` at each of ``slots`` (a helper: the generator would make the caller's locals
    cell variables, slower at every call, found in the memo or not)."""
    return tuple(Action(p, kind, (s,)) for s in slots)


def _replace_actions(g: State, p: int) -> Actions:
    """Single replaces (a set is a rule: :func:`set_size`)."""
    return _slot_actions(g, p, A.REPLACE)


def _opening_actions(g: State, p: int) -> Actions:
    key = (A.OPENING_PEEK, p, g.occ[p], g.rules.opening_peek)
    found = g._tables.lists.get(key)
    if found is None:
        found = tuple(
            Action(p, A.OPENING_PEEK, c) for c in combinations(g.occ[p], g.rules.opening_peek)
        )
        g._tables.keep(key, found)
    return found


def _peek_actions(g: State, p: int) -> Actions:
    return tuple(Action(p, A.PEEK, (s,)) for s in g.occ[p])


def _spy_actions(g: State, p: int) -> Actions:
    others = [t for t in range(g.players) if t != p]
    return tuple(Action(p, A.SPY, (s,), t) for t in others for s in g.occ[t])


def _swap_actions(g: State, p: int) -> Actions:
    others = [t for t in range(g.players) if t != p]
    return tuple(
        Action(p, A.SWAP, (s,), t, ts) for s in g.occ[p] for t in others for ts in g.occ[t]
    )


_MAKERS: dict[str, Callable[[State, int], Actions]] = {
    A.DRAW: _simple(A.DRAW),
    A.TAKE_DISCARD: _simple(A.TAKE_DISCARD),
    A.CALL: _simple(A.CALL),
    A.REPLACE: _replace_actions,
    A.DISCARD: _simple(A.DISCARD),
    A.UNDO: _simple(A.UNDO),
    A.PEEK: _peek_actions,
    A.SPY: _spy_actions,
    A.SWAP: _swap_actions,
    A.SKIP: _simple(A.SKIP),
    A.END_TURN: _simple(A.END_TURN),
}


def canonical(action: Action) -> Action:
    """Slots of a set or an opening peek are a set: their order does not matter."""
    if action.kind in (A.REPLACE, A.OPENING_PEEK) and len(action.slots) > 1:
        return action._replace(slots=tuple(sorted(action.slots)))
    return action
