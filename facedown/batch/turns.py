"""Turns and actions, compiled: what each action kind does to one game (the engine's
``HANDLERS``: draw, take, replace and sets, discard, the opening look, the powers, skip, undo,
END TURN, call, TAP), and what an action leaves to do (the end of the turn, a player who cannot
act passing, the end of the round through :mod:`.scoring`).
"""

from __future__ import annotations

from .bundles import Fixed, State
from .deal import _bit, _filled, _pop_draw, _push
from .jit import I64, inline
from .layout import (
    CALL_AT_START,
    CALLER,
    ERROR,
    EXPLICIT_END_TURN,
    FINALS,
    HELD,
    HELD_DISC,
    HOLDING,
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_END_TURN,
    K_OPENING,
    K_PEEK,
    K_REPLACE,
    K_SKIP,
    K_SPY,
    K_SWAP,
    K_TAKE,
    K_TAP,
    K_UNDO,
    KEEP_TAKEN,
    MAX_HAND,
    NDISC,
    NDRAW,
    OPENING_PEEK,
    PASSES,
    PEEK_BIT,
    PEEKED,
    PENDING,
    PHASE,
    PLACES,
    POWER,
    POWERS,
    POWERS_WHILE_HOLDING,
    RANK,
    RETURN_TAKEN,
    SPY_BIT,
    SWAP_BIT,
    TAKEN,
    TAP_PENALTY,
    TURN,
    TURN_END,
    TURN_START,
    TURNS,
    N,
)
from .scoring import _end_round

# ------------------------------------------------------------------ turns
# What an action leaves to do (the engine's handlers end with one of these calls).
DONE, AFTER, END, STUCK = range(4)


@inline
def _stuck(st: State, fx: Fixed, g: int) -> int:
    """The engine's _check_stuck: 0 the turn goes on; 1 the round ended; 2 the player passed
    (the caller ends the turn)."""
    Z, R = st.Z, fx.R
    if Z[g, NDRAW] > 0:  # the common case: a card can be drawn
        Z[g, PASSES] = 0
        return 0
    p = Z[g, TURN]
    occupied = _filled(st, g, p) > 0
    if Z[g, NDISC] >= 2 or (Z[g, NDISC] > 0 and (occupied or R[RETURN_TAKEN])):
        Z[g, PASSES] = 0
        return 0
    if R[CALL_AT_START] and Z[g, CALLER] < 0:
        Z[g, PASSES] = 0
        return 0
    Z[g, PASSES] += 1
    if Z[g, PASSES] >= R[N]:
        _end_round(st, fx, g)
        return 1
    return 2


@inline
def _end_turn(st: State, fx: Fixed, g: int, p: int) -> None:
    """``p``'s turn is over: the next seat's begins (passes included), or the round ends."""
    Z = st.Z
    while True:
        Z[g, PENDING] = 0
        if Z[g, CALLER] >= 0:
            Z[g, FINALS] -= 1
            if Z[g, FINALS] == 0:
                _end_round(st, fx, g)
                return
        Z[g, TURN] = (p + 1) % fx.R[N]
        Z[g, PHASE] = TURN_START
        Z[g, TURNS] += 1
        if _stuck(st, fx, g) != 2:
            return
        p = Z[g, TURN]


@inline
def _follow(st: State, fx: Fixed, g: int, p: int, then: int) -> None:
    """Do what an action left: after a replace or discard wait for END TURN or end the turn
    (the engine's _after_action), end the turn, or check that the turn player can act."""
    if then == AFTER:
        if fx.R[EXPLICIT_END_TURN]:
            st.Z[g, PHASE] = TURN_END
            return
        then = END
    if then == STUCK:
        if _stuck(st, fx, g) != 2:
            return
        p = st.Z[g, TURN]
        then = END
    if then == END:
        _end_turn(st, fx, g, p)


# ------------------------------------------------------------------ the actions
@inline
def _replace(st: State, fx: Fixed, g: int, p: int, slots: I64, count: int) -> int:
    Z, S, hands, R, D = st.Z, st.S, st.hands, fx.R, fx.D
    card = Z[g, HELD]
    Z[g, HELD] = -1
    Z[g, PENDING] = 0
    if count > 1:
        rank = D[RANK, hands[g, p, slots[0]]]
        same = True
        for j in range(1, count):
            if D[RANK, hands[g, p, slots[j]]] != rank:
                same = False
        if not same:  # a failed set: the engine's _fail_set
            for j in range(count):
                st.public[g] |= _bit(hands[g, p, slots[j]])
            if R[KEEP_TAKEN] and S[g, PLACES, p] < R[MAX_HAND]:
                hands[g, p, S[g, PLACES, p]] = card
                S[g, PLACES, p] += 1
                return AFTER
            _push(st, g, card)
            return END
    for j in range(count):
        _push(st, g, hands[g, p, slots[j]])
        hands[g, p, slots[j]] = -1
    hands[g, p, slots[0]] = card
    return AFTER


@inline
def _use_power(st: State, g: int, bit: int) -> int:
    Z = st.Z
    Z[g, PENDING] &= ~bit
    return AFTER if Z[g, PHASE] == POWERS and Z[g, PENDING] == 0 else DONE


@inline
def _tap(st: State, fx: Fixed, g: int, p: int, s: int) -> int:
    Z, S, hands, R, D = st.Z, st.S, st.hands, fx.R, fx.D
    card = hands[g, p, s]
    if D[RANK, card] == D[RANK, st.disc[g, Z[g, NDISC] - 1]]:
        hands[g, p, s] = -1
        _push(st, g, card)
    else:
        st.public[g] |= _bit(card)
        for _ in range(R[TAP_PENALTY]):
            if S[g, PLACES, p] >= R[MAX_HAND]:
                break  # the hand has no place left: no more penalty cards
            extra = _pop_draw(st, fx, g)
            if extra < 0:
                break
            hands[g, p, S[g, PLACES, p]] = extra
            S[g, PLACES, p] += 1
    return STUCK if Z[g, PHASE] == TURN_START else DONE


@inline
def _act(  # noqa: C901 - one branch per kind, as the engine's HANDLERS
    st: State, fx: Fixed, g: int, p: int, a: int
) -> int:
    """Apply action ``a`` of seat ``p`` in game ``g`` (the engine's HANDLERS); what is left."""
    Z, S, hands, disc, known, public = st.Z, st.S, st.hands, st.disc, st.known, st.public
    R, D, C, CS = fx.R, fx.D, fx.C, fx.CS
    kind = C[0, a]
    n = R[N]
    if kind == K_DRAW:
        card = _pop_draw(st, fx, g)
        if card < 0:
            Z[g, ERROR] = 1
            return DONE
        Z[g, HELD] = card
        Z[g, HELD_DISC] = 0
        known[g, p] |= _bit(card)
        Z[g, PHASE] = HOLDING
        if R[POWERS_WHILE_HOLDING]:
            Z[g, PENDING] = D[POWER, card]
        return DONE
    if kind == K_REPLACE:
        return _replace(st, fx, g, p, CS[a], C[1, a])
    if kind == K_DISCARD:
        card = Z[g, HELD]
        Z[g, HELD] = -1
        _push(st, g, card)
        if not R[POWERS_WHILE_HOLDING] and Z[g, HELD_DISC] == 0 and D[POWER, card] != 0:
            Z[g, PENDING] = D[POWER, card]
            Z[g, PHASE] = POWERS
            return DONE
        Z[g, PENDING] = 0
        return AFTER
    if kind == K_TAKE:
        Z[g, NDISC] -= 1
        card = disc[g, Z[g, NDISC]]
        Z[g, HELD] = card
        Z[g, HELD_DISC] = 1
        public[g] |= _bit(card)
        Z[g, PHASE] = TAKEN
        return DONE
    if kind == K_OPENING:
        S[g, PEEKED, p] = 1
        for j in range(R[OPENING_PEEK]):
            known[g, p] |= _bit(hands[g, p, CS[a, j]])
        for q in range(n):
            if S[g, PEEKED, q] == 0:
                return DONE
        Z[g, PHASE] = TURN_START
        Z[g, TURNS] += 1
        return STUCK
    if kind == K_PEEK:
        known[g, p] |= _bit(hands[g, p, CS[a, 0]])
        return _use_power(st, g, PEEK_BIT)
    if kind == K_SPY:
        known[g, p] |= _bit(hands[g, (p + C[2, a]) % n, CS[a, 0]])
        return _use_power(st, g, SPY_BIT)
    if kind == K_SWAP:
        t = (p + C[2, a]) % n
        s, ts = CS[a, 0], C[3, a]
        mine = hands[g, p, s]
        hands[g, p, s] = hands[g, t, ts]
        hands[g, t, ts] = mine
        return _use_power(st, g, SWAP_BIT)
    if kind == K_SKIP:
        Z[g, PENDING] = 0
        return AFTER
    if kind == K_UNDO:
        _push(st, g, Z[g, HELD])
        Z[g, HELD] = -1
        Z[g, PHASE] = TURN_START
        return DONE
    if kind == K_END_TURN:
        return END
    if kind == K_CALL:
        Z[g, CALLER] = p
        Z[g, FINALS] = n
        return END
    if kind == K_TAP:
        return _tap(st, fx, g, p, CS[a, 0])
    Z[g, ERROR] = 1
    return DONE
