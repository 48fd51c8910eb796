"""Transitions: what each legal action does to the state, and the events it causes.

:data:`HANDLERS` maps each kind of action to its function.  They are called only with an action
:mod:`.legality` accepted, so they check nothing; every change they make is to the
:class:`~.state.State` given, and every event goes to its ``_events`` list.
"""

from __future__ import annotations

from collections.abc import Callable

from . import actions as A
from . import events as E
from .actions import Action
from .deal import deal_round, reseeded, shuffle
from .phases import (
    HOLDING,
    MATCH_OVER,
    POWERS,
    ROUND_OVER,
    TAKEN,
    TURN_END,
    TURN_START,
)
from .scoring import match_winners, next_first, score_round
from .state import EMPTY, NO_LIMIT, State


def pop_draw(g: State) -> int | None:
    """Take the top card of the draw pile, recycling the discard pile first when needed."""
    if not g.draw_pile:
        if len(g.discard_pile) < 2:
            return None
        top = g.discard_pile.pop()
        recycled = g.discard_pile
        g.reshuffles += 1
        recycled = shuffle(reseeded(g, g.round_no, g.reshuffles), recycled)
        mask = 0
        for c in recycled:
            mask |= 1 << c
        # Cards shuffled into the draw pile are unknown to everyone from now on.
        g.public &= ~mask
        g.known = [k & ~mask for k in g.known]
        g.draw_pile = recycled
        g.discard_pile = [top]
        g._events.append(E.reshuffled(len(recycled)))
    return g.draw_pile.pop()


# -- opening
def _opening_peek(g: State, a: Action) -> None:
    p = a.player
    g.peeked[p] = True
    hand = g.hands[p]
    slots = a.slots
    seen = tuple(map(hand.__getitem__, slots))
    mask = g.known[p]
    for c in seen:
        mask |= 1 << c
    g.known[p] = mask
    event = E.opening_peeked(p, slots, seen)
    g._events.append(event)
    g._showing = event
    if False not in g.peeked:
        g.phase = TURN_START
        g._play_from = g.version  # State.begin_play, inline (every round comes here)
        g._limit_at = g.version + g.rules.round_action_limit
        g._events.append(E.play_started(g.turn))
        if g.draw_pile:  # _check_stuck's common case, inline: a card can be drawn
            g.passes = 0
        else:
            _check_stuck(g)


# -- the turn
def _draw(g: State, a: Action) -> None:
    p = a.player
    draw = g.draw_pile
    card = draw.pop() if draw else pop_draw(g)  # pop_draw recycles the discard pile
    assert card is not None  # noqa: S101 - legal only when a card can be drawn; hot path
    g.held = card
    g.held_from_discard = False
    g.known[p] |= 1 << card
    g.phase = HOLDING
    event = E.drew(p, card)
    g._events.append(event)
    g._showing = event
    if g.rules.power_timing == "holding":
        g.pending = g.deck.powers[card]


def _take_discard(g: State, a: Action) -> None:
    card = g.discard_pile.pop()
    g.held = card
    g.held_from_discard = True
    g.public |= 1 << card
    g.phase = TAKEN
    g._events.append(E.took_discard(a.player, card))


def _undo(g: State, a: Action) -> None:
    card = g.held
    g.discard_pile.append(card)
    g.held = EMPTY
    g.phase = TURN_START
    g._events.append(E.undid(a.player, card))


def _replace(g: State, a: Action) -> None:
    p = a.player
    hand = g.hands[p]
    slots = a.slots
    card = g.held
    g.held = EMPTY
    g.pending = ()
    if len(slots) == 1:  # the common case: one card out, one in
        s = slots[0]
        out: tuple[int, ...] = (hand[s],)
        hand[s] = card
        g.discard_pile.append(out[0])
    else:
        found = _replace_set(g, p, slots, card)
        if found is None:
            return
        out = found
    g._events.append(E.replaced(p, slots, out, () if g.held_from_discard else (card,)))
    if g.rules.explicit_end_turn:  # _after_action, inline: every turn's replace comes here
        g.phase = TURN_END
    else:
        end_turn(g, p)


def _replace_set(g: State, p: int, slots: tuple[int, ...], card: int) -> tuple[int, ...] | None:
    """Replace a set with the held card: the cards put out, or None for a failed set (done)."""
    hand = g.hands[p]
    ranks = g.deck.ranks
    rank = ranks[hand[slots[0]]]
    if any(ranks[hand[s]] != rank for s in slots):
        _fail_set(g, p, slots, card)
        return None
    out = tuple([hand[s] for s in slots])
    hand[slots[0]] = card
    for s in slots[1:]:
        hand[s] = EMPTY
    g.set_occ(p)
    g.discard_pile.extend(out)
    return out


def _fail_set(g: State, p: int, slots: tuple[int, ...], card: int) -> None:
    hand = g.hands[p]
    shown = tuple([hand[s] for s in slots])
    public = g.public
    for c in shown:
        public |= 1 << c
    g.public = public
    event = E.set_failed(p, slots, shown)
    g._events.append(event)
    g._showing = event
    if g.rules.failed_set == "keep_taken" and len(hand) < g.rules.max_hand:
        hand.append(card)
        g.set_occ(p)
        g._events.append(E.kept(p, len(hand) - 1, card, in_sight=g.held_from_discard))
        _after_action(g, p)
    else:
        g.discard_pile.append(card)
        g._events.append(E.discarded(p, card))
        end_turn(g, p)


def _discard(g: State, a: Action) -> None:
    p = a.player
    card = g.held
    g.held = EMPTY
    g.discard_pile.append(card)
    g._events.append(E.discarded(p, card))
    timing_discard = g.rules.power_timing == "discard"
    if timing_discard and not g.held_from_discard and g.deck.powers[card]:
        g.pending = g.deck.powers[card]
        g.phase = POWERS
        return
    g.pending = ()
    _after_action(g, p)


def _use_power(g: State, p: int, power: str) -> None:
    g.pending = tuple(x for x in g.pending if x != power)
    if g.phase is POWERS and not g.pending:
        _after_action(g, p)


def _peek(g: State, a: Action) -> None:
    p, s = a.player, a.slots[0]
    card = g.hands[p][s]
    g.known[p] |= 1 << card
    event = E.peeked(p, a.slots, card)
    g._events.append(event)
    g._showing = event
    _use_power(g, p, A.PEEK)


def _spy(g: State, a: Action) -> None:
    p, t, s = a.player, a.target, a.slots[0]
    card = g.hands[t][s]
    g.known[p] |= 1 << card
    event = E.spied(p, t, s, card)
    g._events.append(event)
    g._showing = event
    _use_power(g, p, A.SPY)


def _swap(g: State, a: Action) -> None:
    p, s, t, ts = a.player, a.slots[0], a.target, a.target_slot
    mine, theirs = g.hands[p], g.hands[t]
    mine[s], theirs[ts] = theirs[ts], mine[s]
    g._events.append(E.swapped(p, a.slots, t, ts))
    _use_power(g, p, A.SWAP)


def _skip(g: State, a: Action) -> None:
    g.pending = ()
    g._events.append(E.skipped(a.player))
    _after_action(g, a.player)


def _after_action(g: State, p: int) -> None:
    """The replace or discard is complete: wait for END TURN, or end the turn now."""
    if g.rules.explicit_end_turn:
        g.phase = TURN_END
    else:
        end_turn(g, p)


def _end_turn(g: State, a: Action) -> None:
    end_turn(g, a.player)


def _call(g: State, a: Action) -> None:
    p = a.player
    g.caller = p
    g.finals_left = len(g.sudden_seats()) if g.sudden_death_played else g.players
    g._events.append(E.called(p))
    end_turn(g, p)


def end_turn(g: State, p: int) -> None:
    """``p``'s turn is over: the next seat's begins, or the round ends after the final turns."""
    g.pending = ()
    if g.caller >= 0:
        g.finals_left -= 1
        if g.finals_left == 0:
            _end_round(g)
            return
    g.turn = turn = (p + 1) % g.players
    if g.sudden_death_played:  # a sudden-death round: the seats in the tie take the turns
        playing = g.sudden_seats()
        while turn not in playing:
            g.turn = turn = (turn + 1) % g.players
    g.phase = TURN_START
    g._events.append(E.turn_started(turn))
    if g.draw_pile:  # _check_stuck's common case, inline: a card can be drawn
        g.passes = 0
    else:
        _check_stuck(g)


def _check_stuck(g: State) -> None:
    """A player with no possible turn action passes; a whole table of passes ends the round."""
    if g.draw_pile:  # the common case: a card can be drawn
        g.passes = 0
        return
    p = g.turn
    rules = g.rules
    if g.can_draw() or (g.discard_pile and (g.occ[p] or rules.return_taken_discard)):
        g.passes = 0
        return
    if rules.call_at_turn_start and g.caller < 0:
        g.passes = 0
        return
    g.passes += 1
    g._events.append(E.passed(p))
    if g.passes >= (len(g.sudden_seats()) if g.sudden_death_played else g.players):
        _end_round(g)
    else:
        end_turn(g, p)


# -- taps
def _tap(g: State, a: Action) -> None:
    p, s = a.player, a.slots[0]
    hand = g.hands[p]
    card = hand[s]
    if g.deck.ranks[card] == g.deck.ranks[g.discard_pile[-1]]:
        hand[s] = EMPTY
        g.set_occ(p)
        g.discard_pile.append(card)
        g._events.append(E.tap_hit(p, a.slots, card))
        if g.phase is TURN_START:
            _check_stuck(g)  # a hit can empty the turn player's hand
        return
    g.public |= 1 << card
    event = E.tap_missed(p, a.slots, card)
    g._events.append(event)
    g._showing = event
    for _ in range(g.rules.tap_penalty_cards):
        if len(hand) >= g.rules.max_hand:
            break  # the hand has no place left: no more penalty cards
        extra = pop_draw(g)
        if extra is None:
            break
        hand.append(extra)
        g._events.append(E.penalty(p, len(hand) - 1))
    g.set_occ(p)
    if g.phase is TURN_START:
        _check_stuck(g)  # a tap can leave the turn player with nothing left to do


# -- the end of a round
def _end_round(g: State, *, by_bound: bool = False) -> None:
    # The round's count of actions (State.round_actions) stays as it is from here (the version
    # moves no more this round): the action that ends the round is not one of them, unless
    # the bound ended it (nor is an action that began the play and ended it at once).
    if not by_bound and g.version > g._play_from:
        g._play_from += 1
    g._limit_at = NO_LIMIT
    result = score_round(g, g.caller)
    g.history.append(result)
    g.totals = list(result.totals)
    g.hundred_used = list(result.hundred_used)
    g.held = EMPTY
    g.pending = ()
    g._events.append(E.round_over(result))
    winners = match_winners(g)
    if winners is None:
        g.phase = ROUND_OVER
        return
    g.phase = MATCH_OVER
    g.is_match_over = True
    g.winners = winners
    g._events.append(E.match_over(winners))


def end_at_limit(g: State) -> None:
    """The action just made was the round's ``round_action_limit``-th of its play, and left it
    in play: the round ends here, scored as a table of passes ends it (a call already made
    stands).  A card in hand goes back where it came from first: a taken discard onto the
    discard pile, a drawn card onto the draw pile, where nobody knows it any more."""
    card = g.held
    if card != EMPTY:
        if g.held_from_discard:
            g.discard_pile.append(card)
        else:
            g.draw_pile.append(card)
            mask = ~(1 << card)
            g.public &= mask
            g.known = [k & mask for k in g.known]
        g.held = EMPTY
        g.held_from_discard = False
        g._showing = None  # its moment ends with it: nobody is shown a card back in a pile
    _end_round(g, by_bound=True)


def _next_round(g: State, a: Action) -> None:
    g._events.extend(deal_round(g, None, next_first(g)))


HANDLERS: dict[str, Callable[[State, Action], None]] = {
    A.OPENING_PEEK: _opening_peek,
    A.DRAW: _draw,
    A.TAKE_DISCARD: _take_discard,
    A.UNDO: _undo,
    A.REPLACE: _replace,
    A.DISCARD: _discard,
    A.PEEK: _peek,
    A.SPY: _spy,
    A.SWAP: _swap,
    A.SKIP: _skip,
    A.END_TURN: _end_turn,
    A.CALL: _call,
    A.TAP: _tap,
    A.NEXT_ROUND: _next_round,
}
