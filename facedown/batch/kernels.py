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

from typing import Any

import numpy as np

from .jit import F64, I8, I64, U64, B, inline, kernel
from .layout import (
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
    ROUND_ACTION_LIMIT,
    ROUND_ACTIONS,
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
    VALUE,
    WINDOW,
    WINNERS,
    N,
)

ONE = np.uint64(1)


# ------------------------------------------------------------------ small helpers
@inline
def _bit(card: int) -> np.uint64:
    return ONE << np.uint64(card)


@kernel
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


@inline
def _filled(hands: np.ndarray, Z: np.ndarray, S: np.ndarray, g: int, p: int) -> int:
    """How many places of ``p``'s hand hold a card."""
    count = 0
    for s in range(S[g, PLACES, p]):
        if hands[g, p, s] >= 0:
            count += 1
    return count


@inline
def _push(disc: np.ndarray, Z: np.ndarray, g: int, card: int) -> None:
    disc[g, Z[g, NDISC]] = card
    Z[g, NDISC] += 1


# ------------------------------------------------------------------ dealing
@kernel
def _deal(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    g: int,
    first: int,
) -> None:
    """The engine's deal_round (shuffled from the keys), starting with ``first``."""
    n, size, cards = R[N], R[HAND_SIZE], R[CARDS]
    Z[g, ROUND] += 1
    Z[g, FIRST] = first
    order = draw[g]  # the shuffled deck is laid out where the draw pile will be
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
    Z[g, NDRAW] = end - 1  # the draw pile is the rest of the order, in place
    Z[g, HELD] = -1
    Z[g, HELD_DISC] = 0
    Z[g, PENDING] = 0
    Z[g, CALLER] = -1
    Z[g, FINALS] = 0
    Z[g, PASSES] = 0
    Z[g, RESHUFFLES] = 0
    Z[g, ROUND_ACTIONS] = 0
    public[g] = 0
    Z[g, TURN] = first
    if R[OPENING_PEEK] == 0:
        Z[g, PHASE] = TURN_START
        Z[g, TURNS] += 1
    else:
        Z[g, PHASE] = OPENING


@kernel
def deal_all(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    games: I64,
) -> None:
    """Deal the first round of ``games`` (seat 0 starts)."""
    for g in games:
        _deal(Z, S, hands, draw, disc, known, public, keys, R, g, 0)


@kernel
def _reshuffle(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    g: int,
) -> bool:
    """The draw pile is empty: the discard pile but its top becomes the new draw pile, in the
    order of the shuffle keys (the engine's pop_draw); False when it has too few cards."""
    if Z[g, NDISC] < 2:
        return False
    count = Z[g, NDISC] - 1
    top = disc[g, count]
    Z[g, RESHUFFLES] += 1
    if Z[g, SHUFFLE_FOR] != (Z[g, ROUND] << ROUND_SHIFT) | Z[g, RESHUFFLES]:
        Z[g, ERROR] = 1  # the keys of this reshuffle were not filled in: a bug
    Z[g, SHUFFLE_FOR] = -1
    order = draw[g]  # the draw pile is empty: its row holds the order, then the cards
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
    return True


@inline
def _pop_draw(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    g: int,
) -> int:
    """The top card of the draw pile, the discard pile recycled first when needed (-1: none)."""
    if Z[g, NDRAW] == 0 and not _reshuffle(Z, S, hands, draw, disc, known, public, keys, R, g):
        return -1
    Z[g, NDRAW] -= 1
    return int(draw[g, Z[g, NDRAW]])


# ------------------------------------------------------------------ the end of a round
@kernel
def _hand_totals(S: I64, hands: I8, R: I64, D: I64, g: int) -> int:
    """Each hand's total into ``S[g, HAND_TOTALS]`` (and as the round score to start from);
    returns a bit per seat that shot the moon (two 12s and two 13s, where the rules have it)."""
    moon = 0
    for p in range(R[N]):
        twelve = 0
        thirteen = 0
        total = 0
        for s in range(S[g, PLACES, p]):
            c = hands[g, p, s]
            if c >= 0:
                v = D[VALUE, c]
                total += v
                twelve += v == 12
                thirteen += v == 13
        S[g, HAND_TOTALS, p] = total
        S[g, ROUND_SCORES, p] = total
        if R[MOON] and twelve >= 2 and thirteen >= 2:
            moon |= 1 << p
    return moon


@kernel
def _score_caller(S: I64, R: I64, g: int, caller: int) -> None:
    """The caller's score: zero when lowest (if the rules say so), penalised when not."""
    totals, scores = S[g, HAND_TOTALS], S[g, ROUND_SCORES]
    mine = totals[caller]
    others = np.int64(1) << 60
    for p in range(R[N]):
        if p != caller and totals[p] < others:
            others = totals[p]
    lowest = mine < others if R[CALLER_STRICT] else mine <= others
    if not lowest:
        scores[caller] = mine * R[CALLER_MULTIPLIER] + R[CALLER_PENALTY]
    elif R[CALLER_LOWEST_ZERO]:
        scores[caller] = 0


@kernel
def _lowest_zero(S: I64, R: I64, g: int, caller: int) -> None:
    """The lowest hand scores 0: every tied hand, or the caller alone when the caller is among
    them and the rules say so."""
    n, totals, scores = R[N], S[g, HAND_TOTALS], S[g, ROUND_SCORES]
    lowest = totals[0]
    for p in range(1, n):
        lowest = min(lowest, totals[p])
    if R[LOWEST_TIE_CALLER] and caller >= 0 and totals[caller] == lowest:
        scores[caller] = 0
        return
    for p in range(n):
        if totals[p] == lowest:
            scores[p] = 0


@kernel
def _score(S: I64, R: I64, D: I64, hands: I8, g: int, caller: int) -> None:
    """The round's scores (the engine's score_round and score_totals), the 100 rule applied."""
    n = R[N]
    moon = _hand_totals(S, hands, R, D, g)
    scores = S[g, ROUND_SCORES]
    if moon:
        for p in range(n):
            scores[p] = 0 if moon & (1 << p) else R[MOON_POINTS]
    else:
        if R[LOWEST_ZERO]:
            _lowest_zero(S, R, g, caller)
        if caller >= 0:
            _score_caller(S, R, g, caller)
    rule = R[HUNDRED_RULE]
    for p in range(n):
        total = S[g, TOTALS, p] + scores[p]
        if total == 100 and (rule == 2 or (rule == 1 and S[g, HUNDRED_USED, p] == 0)):
            total = R[HUNDRED_RESET]
            S[g, HUNDRED_USED, p] = 1
        S[g, TOTALS, p] = total


@kernel
def _match_over(Z: I64, S: I64, R: I64, g: int) -> bool:
    """Whether the match is over after this round (the engine's match_end: a score limit, the
    fixed rounds, one sudden-death round on a tie); the winners are set when it is."""
    n = R[N]
    totals = S[g, TOTALS]
    high = low = totals[0]
    for p in range(1, n):
        high = max(high, totals[p])
        low = min(low, totals[p])
    over = R[HAS_LIMIT] == 1 and high > R[SCORE_LIMIT]
    if not over and R[ROUNDS] >= 0 and Z[g, ROUND] >= R[ROUNDS]:
        leaders = 0
        for p in range(n):
            leaders += totals[p] == low
        if R[SUDDEN] and leaders > 1 and Z[g, SUDDEN_DEATH] == 0:
            Z[g, SUDDEN_DEATH] = 1
        else:
            over = True
    if over:
        for p in range(n):
            S[g, WINNERS, p] = totals[p] == low
    return bool(over)


@kernel
def _next_first(Z: I64, S: I64, R: I64, g: int) -> int:
    """Who starts the next round: the next seat, or the round's winner (the first of them
    from the last round's starter on a tie)."""
    n, first = R[N], Z[g, FIRST]
    if not R[FIRST_WINNER]:
        return int((first + 1) % n)
    best = first
    for i in range(1, n):
        p = (first + i) % n
        if S[g, ROUND_SCORES, p] < S[g, ROUND_SCORES, best]:
            best = p
    return int(best)


@kernel
def _end_round(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    D: I64,
    g: int,
) -> None:
    """Score the round, then end the match or deal the next round (the engine's _end_round
    and, for the batch, next_round at once)."""
    _score(S, R, D, hands, g, Z[g, CALLER])
    Z[g, ROUND_CALLER] = Z[g, CALLER]
    Z[g, PLAYED] += 1
    Z[g, HELD] = -1
    Z[g, PENDING] = 0
    Z[g, ROUND_ENDED] = 1
    if _match_over(Z, S, R, g):
        Z[g, PHASE] = MATCH_OVER
        Z[g, MATCH_ENDED] = 1
        return
    Z[g, PHASE] = ROUND_OVER
    _deal(Z, S, hands, draw, disc, known, public, keys, R, g, _next_first(Z, S, R, g))


# ------------------------------------------------------------------ turns
# What an action leaves to do (the engine's handlers end with one of these calls).
DONE, AFTER, END, STUCK = range(4)


@inline
def _stuck(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    D: I64,
    g: int,
) -> int:
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


@inline
def _end_turn(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    D: I64,
    g: int,
    p: int,
) -> None:
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


@inline
def _follow(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    D: I64,
    g: int,
    p: int,
    then: int,
) -> None:
    """Do what an action left: after a replace or discard wait for END TURN or end the turn
    (the engine's _after_action), end the turn, or check that the turn player can act."""
    if then == AFTER:
        if R[EXPLICIT_END_TURN]:
            Z[g, PHASE] = TURN_END
            return
        then = END
    if then == STUCK:
        if _stuck(Z, S, hands, draw, disc, known, public, keys, R, D, g) != 2:
            return
        p = Z[g, TURN]
        then = END
    if then == END:
        _end_turn(Z, S, hands, draw, disc, known, public, keys, R, D, g, p)


# ------------------------------------------------------------------ the actions
@inline
def _replace(
    Z: I64,
    S: I64,
    hands: I8,
    disc: I8,
    public: U64,
    R: I64,
    D: I64,
    g: int,
    p: int,
    slots: I64,
    count: int,
) -> int:
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
                return AFTER
            _push(disc, Z, g, card)
            return END
    for j in range(count):
        _push(disc, Z, g, hands[g, p, slots[j]])
        hands[g, p, slots[j]] = -1
    hands[g, p, slots[0]] = card
    return AFTER


@inline
def _use_power(Z: I64, g: int, bit: int) -> int:
    Z[g, PENDING] &= ~bit
    return AFTER if Z[g, PHASE] == POWERS and Z[g, PENDING] == 0 else DONE


@inline
def _tap(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    D: I64,
    g: int,
    p: int,
    s: int,
) -> int:
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
    return STUCK if Z[g, PHASE] == TURN_START else DONE


@inline
def _act(  # noqa: C901 - one branch per kind, as the engine's HANDLERS
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    D: I64,
    C: I64,
    CS: I64,
    g: int,
    p: int,
    a: int,
) -> int:
    """Apply action ``a`` of seat ``p`` in game ``g`` (the engine's HANDLERS); what is left."""
    kind = C[0, a]
    n = R[N]
    if kind == K_DRAW:
        card = _pop_draw(Z, S, hands, draw, disc, known, public, keys, R, g)
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
        return _replace(Z, S, hands, disc, public, R, D, g, p, CS[a], C[1, a])
    if kind == K_DISCARD:
        card = Z[g, HELD]
        Z[g, HELD] = -1
        _push(disc, Z, g, card)
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
        return _use_power(Z, g, PEEK_BIT)
    if kind == K_SPY:
        known[g, p] |= _bit(hands[g, (p + C[2, a]) % n, CS[a, 0]])
        return _use_power(Z, g, SPY_BIT)
    if kind == K_SWAP:
        t = (p + C[2, a]) % n
        s, ts = CS[a, 0], C[3, a]
        mine = hands[g, p, s]
        hands[g, p, s] = hands[g, t, ts]
        hands[g, t, ts] = mine
        return _use_power(Z, g, SWAP_BIT)
    if kind == K_SKIP:
        Z[g, PENDING] = 0
        return AFTER
    if kind == K_UNDO:
        _push(disc, Z, g, Z[g, HELD])
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
        return _tap(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, CS[a, 0])
    Z[g, ERROR] = 1
    return DONE


# ------------------------------------------------------------------ who acts
@inline
def window_offset(Z: I64, S: I64, hands: I8, R: I64, g: int) -> int:
    """The offset from the turn player of the seat the TAP window offers a tap now (0: none)."""
    phase = Z[g, PHASE]
    if R[TAP] == 0 or phase < TURN_START or phase > TURN_END or Z[g, NDISC] == 0:
        return 0
    n = R[N]
    for j in range(Z[g, WINDOW], n):
        if _filled(hands, Z, S, g, (Z[g, TURN] + j) % n) > 0:
            return j
    return 0


@inline
def actor_of(Z: I64, S: I64, hands: I8, R: I64, g: int) -> int:
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
    return int((Z[g, TURN] + j) % R[N])


@kernel
def actors(Z: I64, S: I64, hands: I8, R: I64, out: Any, window: B) -> None:
    """Each game's deciding seat, and whether it decides in a TAP window."""
    for g in range(Z.shape[0]):
        out[g] = actor_of(Z, S, hands, R, g)
        window[g] = window_offset(Z, S, hands, R, g) > 0


# ------------------------------------------------------------------ the step
@inline
def step_one(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    D: I64,
    C: I64,
    CS: I64,
    g: int,
    a: int,
) -> None:
    """Apply action ``a`` in game ``g`` (not over); PASS declines a TAP window."""
    if C[0, a] == K_PASS:  # only legal in a TAP window: the next seat is offered one
        Z[g, WINDOW] = window_offset(Z, S, hands, R, g) + 1
        return
    p = actor_of(Z, S, hands, R, g)
    counted = TURN_START <= Z[g, PHASE] <= TURN_END  # an action of the round's play
    played = Z[g, PLAYED]
    then = _act(Z, S, hands, draw, disc, known, public, keys, R, D, C, CS, g, p, a)
    _follow(Z, S, hands, draw, disc, known, public, keys, R, D, g, p, then)
    # The round's bound (the engine's end_at_limit); a round that this action ended (the next
    # one is already dealt here) is not counted.
    if counted and Z[g, PLAYED] == played:
        Z[g, ROUND_ACTIONS] += 1
        if Z[g, ROUND_ACTIONS] >= R[ROUND_ACTION_LIMIT]:
            card = Z[g, HELD]  # back where it came from, as the engine puts it
            if card >= 0:
                if Z[g, HELD_DISC]:
                    _push(disc, Z, g, card)
                else:
                    draw[g, Z[g, NDRAW]] = card
                    Z[g, NDRAW] += 1
                    public[g] &= ~_bit(card)
                    for q in range(R[N]):
                        known[g, q] &= ~_bit(card)
                Z[g, HELD] = -1
                Z[g, HELD_DISC] = 0
            _end_round(Z, S, hands, draw, disc, known, public, keys, R, D, g)
    Z[g, WINDOW] = 1 if R[TAP] else R[N]  # the table changed: a new window


@inline
def needs_keys(Z: I64, R: I64, g: int) -> bool:
    """Whether game ``g`` used its deal keys, could reshuffle in its next action without the
    keys for it, or met an impossible state: the Python side looks at it before it goes on."""
    if Z[g, NEED_DEAL_KEYS] or Z[g, ERROR]:
        return True
    if Z[g, PHASE] == MATCH_OVER or Z[g, NDRAW] > max(1, R[TAP_PENALTY]):
        return False
    return bool(Z[g, SHUFFLE_FOR] != (Z[g, ROUND] << ROUND_SHIFT) | (Z[g, RESHUFFLES] + 1))


@kernel
def step(
    Z: I64,
    S: I64,
    hands: I8,
    draw: I8,
    disc: I8,
    known: U64,
    public: U64,
    keys: F64,
    R: I64,
    D: I64,
    C: I64,
    CS: I64,
    act: I64,
    todo: I64,
) -> int:
    """Apply one action per game (ignored once a match is over); the games that need keys
    (:func:`needs_keys`) are listed in ``todo``; returns how many."""
    count = 0
    for g in range(Z.shape[0]):
        Z[g, ROUND_ENDED] = 0
        Z[g, MATCH_ENDED] = 0
        if Z[g, PHASE] == MATCH_OVER:
            continue
        step_one(Z, S, hands, draw, disc, known, public, keys, R, D, C, CS, g, act[g])
        if needs_keys(Z, R, g):
            todo[count] = g
            count += 1
    return count
