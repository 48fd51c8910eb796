"""Refusals: why an action that is not legal now is refused, said precisely.

:func:`refusal` reads the same table of when each kind can be legal (:data:`.legality.WHEN`)
and the same availability checks (:data:`.legality.CHECKS`) that build the legal lists, so a
refusal and a legal list cannot disagree.  :func:`shape_refusal` refuses an action carrying
fields its kind does not take, whatever the moment.
"""

from __future__ import annotations

from . import actions as A
from .actions import Action
from .errors import (
    IllegalAction,
    InvalidSlot,
    InvalidTarget,
    NotAllowedByRules,
    NotYourTurn,
    WrongPhase,
)
from .legality import CHECKS, WHEN, When
from .phases import MATCH_OVER, OPENING, ROUND_OVER
from .state import MAX_SET, State


def refusal(g: State, a: Action) -> IllegalAction:  # noqa: C901 - one check per refusal, in the rules' order; engine
    """Say precisely why an action that is not legal now is refused."""
    rules, p, kind, phase = g.rules, a.player, a.kind, g.phase
    when = WHEN.get(kind)
    if when is None:
        return IllegalAction(f"there is no action {kind!r}")
    malformed = shape_refusal(a)
    if malformed is not None:
        return malformed
    if phase is MATCH_OVER:
        return WrongPhase("the match is over")
    if phase is ROUND_OVER:
        return WrongPhase("the round is over; the next action is next_round")
    if kind == A.NEXT_ROUND:  # never legal here: the round has not ended
        return _wrong_phase(when)
    if phase is OPENING:
        if kind != A.OPENING_PEEK:
            return WrongPhase("play has not started: every player first looks at their cards")
        if g.peeked[p]:
            return WrongPhase("you have already looked at your cards this round")
        return InvalidSlot(
            f"look at exactly {rules.opening_peek} different cards of your own: {list(a.slots)}"
        )
    if when.turn_only and p != g.turn:
        return NotYourTurn(f"it is seat {g.turn}'s turn, not seat {p}'s")
    if when.rule is not None and not getattr(rules, when.rule):
        return NotAllowedByRules(when.no_rule)
    if phase not in when.phases and when.wrong_phase is not None:
        return _wrong_phase(when)
    check = CHECKS.get(kind)
    unavailable = check(g, p) if check is not None else None
    if unavailable is not None:
        return unavailable
    return _argument_refusal(g, a)


def _wrong_phase(when: When) -> IllegalAction:
    if when.wrong_phase is None:  # never: called for entries that name their refusal
        raise RuntimeError("this legality entry has no wrong-phase refusal")
    error, message = when.wrong_phase
    return error(message)


def _argument_refusal(g: State, a: Action) -> IllegalAction:
    """The kind is available now: its slots or target are what is wrong."""
    p, kind = a.player, a.kind
    if kind == A.TAP:
        return _slot_refusal(g, p, a.slots, "tap")
    if kind == A.REPLACE:
        if len(a.slots) > 1 and not g.rules.set_replace:
            return NotAllowedByRules("this table does not allow replacing a set of cards")
        return _slot_refusal(g, p, a.slots, "replace")
    if kind in (A.SPY, A.SWAP) and (a.target == p or not 0 <= a.target < g.players):
        return InvalidTarget(f"{kind} needs another player at this table")
    if kind == A.SPY:
        return _slot_refusal(g, a.target, a.slots, "spy at")
    if kind in (A.PEEK, A.SWAP):
        own = _slot_refusal(g, p, a.slots, kind)
        if isinstance(own, InvalidSlot) or kind == A.PEEK:
            return own
        return _slot_refusal(g, a.target, (a.target_slot,), "swap with")
    return IllegalAction(f"{a.text()} is not possible now")


def _slot_refusal(g: State, owner: int, slots: tuple[int, ...], what: str) -> IllegalAction:
    hand = g.hands[owner]
    for s in slots:
        if not 0 <= s < len(hand) or hand[s] < 0:
            return InvalidSlot(f"cannot {what} slot {s}: no card lies there")
    if len(set(slots)) != len(slots):
        return InvalidSlot(f"slots must be different: {list(slots)}")
    if len(slots) > MAX_SET:
        return InvalidSlot(f"a set has at most {MAX_SET} cards")
    return IllegalAction(f"cannot {what} {list(slots)} now")


def shape_refusal(a: Action) -> IllegalAction | None:
    """An action carrying fields its kind does not take is malformed, whatever the moment."""
    shape = A.SHAPES[a.kind]
    if shape.slots == 0 and a.slots:
        return IllegalAction(f"{a.kind} takes no slot")
    if not shape.target and a.target != -1:
        return IllegalAction(f"{a.kind} takes no target player")
    if not shape.target_slot and a.target_slot != -1:
        return IllegalAction(f"{a.kind} takes no target slot")
    return None
