"""The batch's step, compiled: one loop over the games, the rules as scalar code per game.

Every function here mirrors a function of the reference engine (``facedown.engine.transitions``,
``scoring`` and ``deal``) on one game of the arrays described in :mod:`.layout`; the differential
tests hold each game to the engine after every step.  :func:`step` applies one action per game
(the codec's numbering), :func:`deal_all` deals the first round.  The random keys of a deal or a
reshuffle are read from ``keys``, filled by the Python side (the engine's streams, or numpy's);
a game that used them says so in ``Z`` (``NEED_DEAL_KEYS``, ``SHUFFLE_FOR``).

Compiled by numba with ``cache=True``: the first import on a machine compiles (its time is in
docs/batch.md), later ones load the cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    CALL_AFTER_ACTION,
    CALL_AT_START,
    CALLER,
    CALLER_LOWEST_ZERO,
    CALLER_MULTIPLIER,
    CALLER_PENALTY,
    CALLER_STRICT,
    CARDS,
    DEAL_KEYS,
    ERROR,
    EXPLICIT_END_TURN,
    FINALS,
    FIRST,
    FIRST_WINNER,
    HAND_SIZE,
    HAND_TOTALS,
    HAS_LIMIT,
    HELD,
    HELD_DISC,
    HOLDING,
    HUNDRED_RESET,
    HUNDRED_RULE,
    HUNDRED_USED,
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_END_TURN,
    K_OPENING,
    K_PASS,
    K_PEEK,
    K_REPLACE,
    K_SKIP,
    K_SPY,
    K_SWAP,
    K_TAKE,
    K_TAP,
    K_UNDO,
    KEEP_TAKEN,
    LOWEST_TIE_CALLER,
    LOWEST_ZERO,
    MATCH_ENDED,
    MATCH_OVER,
    MAX_HAND,
    MOON,
    MOON_POINTS,
    NDISC,
    NDRAW,
    NEED_DEAL_KEYS,
    OPENING,
    OPENING_PEEK,
    PASSES,
    PEEK_BIT,
    PEEKED,
    PENDING,
    PHASE,
    PLACES,
    PLAYED,
    POWER,
    POWERS,
    POWERS_WHILE_HOLDING,
    RANK,
    RESHUFFLES,
    RETURN_TAKEN,
    ROUND,
    ROUND_CALLER,
    ROUND_ENDED,
    ROUND_OVER,
    ROUND_SCORES,
    ROUND_SHIFT,
    ROUNDS,
    SCORE_LIMIT,
    SHUFFLE_FOR,
    SHUFFLE_KEYS,
    SPY_BIT,
    SUDDEN,
    SUDDEN_DEATH,
    SWAP_BIT,
    TAKEN,
    TAP,
    TAP_PENALTY,
    TOTALS,
    TURN,
    TURN_END,
    TURN_START,
    TURNS,
    UNDO_TAKE,
    VALUE,
    WINDOW,
    WINNERS,
    N,
)

ONE = np.uint64(1)


# ------------------------------------------------------------------ small helpers
@njit(cache=True, inline="always")
def _bit(card: int) -> np.uint64:
    return ONE << np.uint64(card)


@njit(cache=True)
def _order(keys: np.ndarray, count: int, out: np.ndarray) -> None:
    """``out[:count]``: the stable order of ``keys[:count]`` (Python's sorted by key)."""
    for i in range(count):
        out[i] = i
    for i in range(1, count):  # insertion sort: stable, and quick for a deck
        j = i
        v = out[i]
        k = keys[v]
        while j > 0 and keys[out[j - 1]] > k:
            out[j] = out[j - 1]
            j -= 1
        out[j] = v


@njit(cache=True)
def _filled(hands: np.ndarray, Z: np.ndarray, S: np.ndarray, g: int, p: int) -> int:
    """How many places of ``p``'s hand hold a card."""
    count = 0
    for s in range(S[g, PLACES, p]):
        if hands[g, p, s] >= 0:
            count += 1
    return count


@njit(cache=True)
def _push(disc: np.ndarray, Z: np.ndarray, g: int, card: int) -> None:
    disc[g, Z[g, NDISC]] = card
    Z[g, NDISC] += 1


# ------------------------------------------------------------------ dealing
@njit(cache=True)
def _deal(Z, S, hands, draw, disc, known, public, keys, R, g, first):  # type: ignore[no-untyped-def]
    """The engine's deal_round (shuffled from the keys), starting with ``first``."""
    n, size, cards = R[N], R[HAND_SIZE], R[CARDS]
    Z[g, ROUND] += 1
    Z[g, FIRST] = first
    order = np.empty(cards, dtype=np.int64)
    _order(keys[g, DEAL_KEYS], cards, order)
    Z[g, NEED_DEAL_KEYS] = 1
    end = cards
    for p in range(n):
        for s in range(hands.shape[2]):
            hands[g, p, s] = -1
        for j in range(size):
            hands[g, p, j] = order[end - 1 - j]
        end -= size
        S[g, PLACES, p] = size
        S[g, PEEKED, p] = 0
        known[g, p] = 0
    disc[g, 0] = order[end - 1]
    Z[g, NDISC] = 1
    for i in range(end - 1):
        draw[g, i] = order[i]
    Z[g, NDRAW] = end - 1
    Z[g, HELD] = -1
    Z[g, HELD_DISC] = 0
    Z[g, PENDING] = 0
    Z[g, CALLER] = -1
    Z[g, FINALS] = 0
    Z[g, PASSES] = 0
    Z[g, RESHUFFLES] = 0
    public[g] = 0
    Z[g, TURN] = first
    if R[OPENING_PEEK] == 0:
        Z[g, PHASE] = TURN_START
        Z[g, TURNS] += 1
    else:
        Z[g, PHASE] = OPENING


@njit(cache=True)
def deal_all(Z, S, hands, draw, disc, known, public, keys, R, games):  # type: ignore[no-untyped-def]
    """Deal the first round of ``games`` (seat 0 starts)."""
    for g in games:
        _deal(Z, S, hands, draw, disc, known, public, keys, R, g, 0)


@njit(cache=True)
def _pop_draw(Z, S, hands, draw, disc, known, public, keys, R, g):  # type: ignore[no-untyped-def]
    """The top card of the draw pile, the discard pile recycled first when needed (-1: none)."""
    if Z[g, NDRAW] == 0:
        if Z[g, NDISC] < 2:
            return -1
        count = Z[g, NDISC] - 1
        top = disc[g, count]
        Z[g, RESHUFFLES] += 1
        if Z[g, SHUFFLE_FOR] != (Z[g, ROUND] << ROUND_SHIFT) | Z[g, RESHUFFLES]:
            Z[g, ERROR] = 1  # the keys of this reshuffle were not filled in: a bug
        Z[g, SHUFFLE_FOR] = -1
        order = np.empty(count, dtype=np.int64)
        _order(keys[g, SHUFFLE_KEYS], count, order)
        mask = np.uint64(0)
        for i in range(count):
            card = disc[g, order[i]]
            mask |= _bit(card)
            draw[g, i] = card
        # Cards shuffled into the draw pile are unknown to everyone from now on.
        public[g] &= ~mask
        for p in range(R[N]):
            known[g, p] &= ~mask
        Z[g, NDRAW] = count
        disc[g, 0] = top
        Z[g, NDISC] = 1
    Z[g, NDRAW] -= 1
    return np.int64(draw[g, Z[g, NDRAW]])


# ------------------------------------------------------------------ the end of a round
@njit(cache=True)
def _end_round(Z, S, hands, draw, disc, known, public, keys, R, D, g):  # type: ignore[no-untyped-def]
    """Score the round (the engine's score_round and score_totals), end the match or deal on."""
    n = R[N]
    caller = Z[g, CALLER]
    totals = np.zeros(n, dtype=np.int64)
    moon = np.zeros(n, dtype=np.bool_)
    any_moon = False
    for p in range(n):
        twelve = 0
        thirteen = 0
        for s in range(S[g, PLACES, p]):
            c = hands[g, p, s]
            if c >= 0:
                v = D[VALUE, c]
                totals[p] += v
                if v == 12:
                    twelve += 1
                elif v == 13:
                    thirteen += 1
        if R[MOON] and twelve >= 2 and thirteen >= 2:
            moon[p] = True
            any_moon = True
    scores = totals.copy()
    if any_moon:
        for p in range(n):
            scores[p] = 0 if moon[p] else R[MOON_POINTS]
    else:
        if R[LOWEST_ZERO]:
            lowest = totals.min()
            caller_tied = caller >= 0 and totals[caller] == lowest
            if R[LOWEST_TIE_CALLER] and caller_tied:
                scores[caller] = 0
            else:
                for p in range(n):
                    if totals[p] == lowest:
                        scores[p] = 0
        if caller >= 0:
            mine = totals[caller]
            others = np.int64(1) << 60
            for p in range(n):
                if p != caller and totals[p] < others:
                    others = totals[p]
            lowest_caller = mine < others if R[CALLER_STRICT] else mine <= others
            if lowest_caller:
                if R[CALLER_LOWEST_ZERO] and scores[caller] != 0:
                    scores[caller] = 0
            else:
                scores[caller] = mine * R[CALLER_MULTIPLIER] + R[CALLER_PENALTY]
    for p in range(n):
        total = S[g, TOTALS, p] + scores[p]
        rule = R[HUNDRED_RULE]
        if total == 100 and (rule == 2 or (rule == 1 and S[g, HUNDRED_USED, p] == 0)):
            total = R[HUNDRED_RESET]
            S[g, HUNDRED_USED, p] = 1
        S[g, TOTALS, p] = total
        S[g, ROUND_SCORES, p] = scores[p]
        S[g, HAND_TOTALS, p] = totals[p]
    Z[g, ROUND_CALLER] = caller
    Z[g, PLAYED] += 1
    Z[g, HELD] = -1
    Z[g, PENDING] = 0
    Z[g, ROUND_ENDED] = 1
    # The end of the match (the engine's match_end).
    high = S[g, TOTALS, 0]
    low = S[g, TOTALS, 0]
    for p in range(1, n):
        high = max(high, S[g, TOTALS, p])
        low = min(low, S[g, TOTALS, p])
    over = R[HAS_LIMIT] == 1 and high > R[SCORE_LIMIT]
    if not over and R[ROUNDS] >= 0 and Z[g, ROUND] >= R[ROUNDS]:
        leaders = 0
        for p in range(n):
            if S[g, TOTALS, p] == low:
                leaders += 1
        if R[SUDDEN] and leaders > 1 and Z[g, SUDDEN_DEATH] == 0:
            Z[g, SUDDEN_DEATH] = 1
        else:
            over = True
    if over:
        Z[g, PHASE] = MATCH_OVER
        Z[g, MATCH_ENDED] = 1
        for p in range(n):
            S[g, WINNERS, p] = 1 if S[g, TOTALS, p] == low else 0
        return
    Z[g, PHASE] = ROUND_OVER
    # Who starts the next round (the engine's next_first), and the deal.
    first = Z[g, FIRST]
    if R[FIRST_WINNER]:
        best = first
        for i in range(1, n):
            p = (first + i) % n
            if S[g, ROUND_SCORES, p] < S[g, ROUND_SCORES, best]:
                best = p
        nxt = best
    else:
        nxt = (first + 1) % n
    _deal(Z, S, hands, draw, disc, known, public, keys, R, g, nxt)


# ------------------------------------------------------------------ turns
@njit(cache=True)
def _stuck(Z, S, hands, draw, disc, known, public, keys, R, D, g):  # type: ignore[no-untyped-def]
    """The engine's _check_stuck: 0 the turn goes on; 1 the round ended; 2 the player passed
    (the caller ends the turn)."""
    if Z[g, NDRAW] > 0:  # the common case: a card can be drawn
        Z[g, PASSES] = 0
        return 0
    p = Z[g, TURN]
    occupied = _filled(hands, Z, S, g, p) > 0
    if Z[g, NDISC] >= 2 or (Z[g, NDISC] > 0 and (occupied or R[RETURN_TAKEN])):
        Z[g, PASSES] = 0
        return 0
    if R[CALL_AT_START] and Z[g, CALLER] < 0:
        Z[g, PASSES] = 0
        return 0
    Z[g, PASSES] += 1
    if Z[g, PASSES] >= R[N]:
        _end_round(Z, S, hands, draw, disc, known, public, keys, R, D, g)
        return 1
    return 2


@njit(cache=True)
def _end_turn(Z, S, hands, draw, disc, known, public, keys, R, D, g, p):  # type: ignore[no-untyped-def]
    """``p``'s turn is over: the next seat's begins (passes included), or the round ends."""
    while True:
        Z[g, PENDING] = 0
        if Z[g, CALLER] >= 0:
            Z[g, FINALS] -= 1
            if Z[g, FINALS] == 0:
                _end_round(Z, S, hands, draw, disc, known, public, keys, R, D, g)
                return
        Z[g, TURN] = (p + 1) % R[N]
        Z[g, PHASE] = TURN_START
        Z[g, TURNS] += 1
        if _stuck(Z, S, hands, draw, disc, known, public, keys, R, D, g) != 2:
            return
        p = Z[g, TURN]


@njit(cache=True)
def _check_stuck(Z, S, hands, draw, disc, known, public, keys, R, D, g):  # type: ignore[no-untyped-def]
    if _stuck(Z, S, hands, draw, disc, known, public, keys, R, D, g) == 2:
        _end_turn(Z, S, hands, draw, disc, known, public, keys, R, D, g, Z[g, TURN])


@njit(cache=True)
def _after_action(Z, S, hands, draw, disc, known, public, keys, R, D, g, p):  # type: ignore[no-untyped-def]
    """The replace or discard is complete: wait for END TURN, or end the turn now."""
    if R[EXPLICIT_END_TURN]:
        Z[g, PHASE] = TURN_END
    else:
        _end_turn(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)


# ------------------------------------------------------------------ the actions
@njit(cache=True)
def _replace(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, slots, count):  # type: ignore[no-untyped-def]
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
                public[g] |= _bit(hands[g, p, slots[j]])
            if R[KEEP_TAKEN] and S[g, PLACES, p] < R[MAX_HAND]:
                hands[g, p, S[g, PLACES, p]] = card
                S[g, PLACES, p] += 1
                _after_action(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)
            else:
                _push(disc, Z, g, card)
                _end_turn(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)
            return
    for j in range(count):
        _push(disc, Z, g, hands[g, p, slots[j]])
        hands[g, p, slots[j]] = -1
    hands[g, p, slots[0]] = card
    _after_action(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)


@njit(cache=True)
def _use_power(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, bit):  # type: ignore[no-untyped-def]
    Z[g, PENDING] &= ~bit
    if Z[g, PHASE] == POWERS and Z[g, PENDING] == 0:
        _after_action(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)


@njit(cache=True)
def _tap(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, s):  # type: ignore[no-untyped-def]
    card = hands[g, p, s]
    if D[RANK, card] == D[RANK, disc[g, Z[g, NDISC] - 1]]:
        hands[g, p, s] = -1
        _push(disc, Z, g, card)
    else:
        public[g] |= _bit(card)
        for _ in range(R[TAP_PENALTY]):
            if S[g, PLACES, p] >= R[MAX_HAND]:
                break  # the hand has no place left: no more penalty cards
            extra = _pop_draw(Z, S, hands, draw, disc, known, public, keys, R, g)
            if extra < 0:
                break
            hands[g, p, S[g, PLACES, p]] = extra
            S[g, PLACES, p] += 1
    if Z[g, PHASE] == TURN_START:
        _check_stuck(Z, S, hands, draw, disc, known, public, keys, R, D, g)


@njit(cache=True)
def _apply(Z, S, hands, draw, disc, known, public, keys, R, D, C, CS, g, p, a):  # type: ignore[no-untyped-def]
    """Apply action ``a`` of seat ``p`` in game ``g`` (the engine's HANDLERS)."""
    kind = C[0, a]
    n = R[N]
    if kind == K_OPENING:
        S[g, PEEKED, p] = 1
        for j in range(R[OPENING_PEEK]):
            known[g, p] |= _bit(hands[g, p, CS[a, j]])
        done = True
        for q in range(n):
            if S[g, PEEKED, q] == 0:
                done = False
        if done:
            Z[g, PHASE] = TURN_START
            Z[g, TURNS] += 1
            _check_stuck(Z, S, hands, draw, disc, known, public, keys, R, D, g)
    elif kind == K_DRAW:
        card = _pop_draw(Z, S, hands, draw, disc, known, public, keys, R, g)
        if card < 0:
            Z[g, ERROR] = 1
            return
        Z[g, HELD] = card
        Z[g, HELD_DISC] = 0
        known[g, p] |= _bit(card)
        Z[g, PHASE] = HOLDING
        if R[POWERS_WHILE_HOLDING]:
            Z[g, PENDING] = D[POWER, card]
    elif kind == K_TAKE:
        Z[g, NDISC] -= 1
        card = disc[g, Z[g, NDISC]]
        Z[g, HELD] = card
        Z[g, HELD_DISC] = 1
        public[g] |= _bit(card)
        Z[g, PHASE] = TAKEN
    elif kind == K_UNDO:
        _push(disc, Z, g, Z[g, HELD])
        Z[g, HELD] = -1
        Z[g, PHASE] = TURN_START
    elif kind == K_REPLACE:
        _replace(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, CS[a], C[1, a])
    elif kind == K_DISCARD:
        card = Z[g, HELD]
        Z[g, HELD] = -1
        _push(disc, Z, g, card)
        if not R[POWERS_WHILE_HOLDING] and Z[g, HELD_DISC] == 0 and D[POWER, card] != 0:
            Z[g, PENDING] = D[POWER, card]
            Z[g, PHASE] = POWERS
            return
        Z[g, PENDING] = 0
        _after_action(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)
    elif kind == K_PEEK:
        known[g, p] |= _bit(hands[g, p, CS[a, 0]])
        _use_power(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, PEEK_BIT)
    elif kind == K_SPY:
        t = (p + C[2, a]) % n
        known[g, p] |= _bit(hands[g, t, CS[a, 0]])
        _use_power(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, SPY_BIT)
    elif kind == K_SWAP:
        t = (p + C[2, a]) % n
        s, ts = CS[a, 0], C[3, a]
        mine = hands[g, p, s]
        hands[g, p, s] = hands[g, t, ts]
        hands[g, t, ts] = mine
        _use_power(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, SWAP_BIT)
    elif kind == K_SKIP:
        Z[g, PENDING] = 0
        _after_action(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)
    elif kind == K_END_TURN:
        _end_turn(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)
    elif kind == K_CALL:
        Z[g, CALLER] = p
        Z[g, FINALS] = n
        _end_turn(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)
    elif kind == K_TAP:
        _tap(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, CS[a, 0])
    else:
        Z[g, ERROR] = 1


# ------------------------------------------------------------------ who acts
@njit(cache=True)
def window_offset(Z, S, hands, R, g):  # type: ignore[no-untyped-def]
    """The offset from the turn player of the seat the TAP window offers a tap now (0: none)."""
    phase = Z[g, PHASE]
    if R[TAP] == 0 or phase < TURN_START or phase > TURN_END or Z[g, NDISC] == 0:
        return 0
    n = R[N]
    for j in range(Z[g, WINDOW], n):
        if _filled(hands, Z, S, g, (Z[g, TURN] + j) % n) > 0:
            return j
    return 0


@njit(cache=True)
def actor_of(Z, S, hands, R, g):  # type: ignore[no-untyped-def]
    """The seat game ``g`` asks now (-1 once the match is over)."""
    phase = Z[g, PHASE]
    if phase == MATCH_OVER:
        return -1
    if phase == OPENING:
        for p in range(R[N]):
            if S[g, PEEKED, p] == 0:
                return p
        return -1
    j = window_offset(Z, S, hands, R, g)
    return (Z[g, TURN] + j) % R[N]


@njit(cache=True)
def actors(Z, S, hands, R, out, window):  # type: ignore[no-untyped-def]
    """Each game's deciding seat, and whether it decides in a TAP window."""
    for g in range(Z.shape[0]):
        out[g] = actor_of(Z, S, hands, R, g)
        window[g] = window_offset(Z, S, hands, R, g) > 0


# ------------------------------------------------------------------ the step
@njit(cache=True)
def step(Z, S, hands, draw, disc, known, public, keys, R, D, C, CS, act):  # type: ignore[no-untyped-def]
    """Apply one action per game (ignored once a match is over); PASS declines a TAP window."""
    n = R[N]
    for g in range(Z.shape[0]):
        Z[g, ROUND_ENDED] = 0
        Z[g, MATCH_ENDED] = 0
        if Z[g, PHASE] == MATCH_OVER:
            continue
        a = act[g]
        if C[0, a] == K_PASS:  # only legal in a TAP window: the next seat is offered one
            Z[g, WINDOW] = window_offset(Z, S, hands, R, g) + 1
            continue
        p = actor_of(Z, S, hands, R, g)
        _apply(Z, S, hands, draw, disc, known, public, keys, R, D, C, CS, g, p, a)
        Z[g, WINDOW] = 1 if R[TAP] else n  # the table changed: a new window
