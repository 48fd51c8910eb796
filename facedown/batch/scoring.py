"""The end of a round, compiled: the hands' totals, the scoring rules (the engine's
``score_round`` and ``score_totals``, the 100 rule), the end of the match and who starts the
next round; :func:`_end_round` scores a round and deals the next one (:mod:`.deal`).
"""

from __future__ import annotations

import numpy as np

from .bundles import Fixed, State
from .deal import _deal
from .jit import inline, kernel
from .layout import (
    CALLER,
    CALLER_LOWEST_ZERO,
    CALLER_MULTIPLIER,
    CALLER_PENALTY,
    CALLER_STRICT,
    FIRST,
    FIRST_WINNER,
    HAND_TOTALS,
    HAS_LIMIT,
    HELD,
    HUNDRED_RESET,
    HUNDRED_RULE,
    HUNDRED_USED,
    LOWEST_TIE_CALLER,
    LOWEST_ZERO,
    MATCH_ENDED,
    MATCH_OVER,
    MOON,
    MOON_POINTS,
    PENDING,
    PHASE,
    PLACES,
    PLAYED,
    ROUND,
    ROUND_CALLER,
    ROUND_ENDED,
    ROUND_OVER,
    ROUND_SCORES,
    ROUNDS,
    SCORE_LIMIT,
    SUDDEN,
    SUDDEN_DEATH,
    TOTALS,
    VALUE,
    WINNERS,
    N,
)


# ------------------------------------------------------------------ the end of a round
# The helpers are inlined into _end_round, their one caller, itself called once a round: a call
# between compiled kernels passes each array of the bundles as some ten numbers.
@inline
def _hand_totals(st: State, fx: Fixed, g: int) -> int:
    """Each hand's total into ``S[g, HAND_TOTALS]`` (and as the round score to start from);
    returns a bit per seat that shot the moon (two 12s and two 13s, where the rules have it)."""
    S, hands, R, D = st.S, st.hands, fx.R, fx.D
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


@inline
def _score_caller(st: State, fx: Fixed, g: int, caller: int) -> None:
    """The caller's score: zero when lowest (if the rules say so), penalised when not."""
    R = fx.R
    totals, scores = st.S[g, HAND_TOTALS], st.S[g, ROUND_SCORES]
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


@inline
def _lowest_zero(st: State, fx: Fixed, g: int, caller: int) -> None:
    """The lowest hand scores 0: every tied hand, or the caller alone when the caller is among
    them and the rules say so."""
    n, totals, scores = fx.R[N], st.S[g, HAND_TOTALS], st.S[g, ROUND_SCORES]
    lowest = totals[0]
    for p in range(1, n):
        lowest = min(lowest, totals[p])
    if fx.R[LOWEST_TIE_CALLER] and caller >= 0 and totals[caller] == lowest:
        scores[caller] = 0
        return
    for p in range(n):
        if totals[p] == lowest:
            scores[p] = 0


@inline
def _score(st: State, fx: Fixed, g: int, caller: int) -> None:
    """The round's scores (the engine's score_round and score_totals), the 100 rule applied."""
    S, R = st.S, fx.R
    n = R[N]
    moon = _hand_totals(st, fx, g)
    scores = S[g, ROUND_SCORES]
    if moon:
        for p in range(n):
            scores[p] = 0 if moon & (1 << p) else R[MOON_POINTS]
    else:
        if R[LOWEST_ZERO]:
            _lowest_zero(st, fx, g, caller)
        if caller >= 0:
            _score_caller(st, fx, g, caller)
    rule = R[HUNDRED_RULE]
    for p in range(n):
        total = S[g, TOTALS, p] + scores[p]
        if total == 100 and (rule == 2 or (rule == 1 and S[g, HUNDRED_USED, p] == 0)):
            total = R[HUNDRED_RESET]
            S[g, HUNDRED_USED, p] = 1
        S[g, TOTALS, p] = total


@inline
def _match_over(st: State, fx: Fixed, g: int) -> bool:
    """Whether the match is over after this round (the engine's match_end: a score limit, the
    fixed rounds, one sudden-death round on a tie); the winners are set when it is."""
    Z, S, R = st.Z, st.S, fx.R
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


@inline
def _next_first(st: State, fx: Fixed, g: int) -> int:
    """Who starts the next round: the next seat, or the round's winner (the first of them
    from the last round's starter on a tie)."""
    scores = st.S[g, ROUND_SCORES]
    n, first = fx.R[N], st.Z[g, FIRST]
    if not fx.R[FIRST_WINNER]:
        return int((first + 1) % n)
    best = first
    for i in range(1, n):
        p = (first + i) % n
        if scores[p] < scores[best]:
            best = p
    return int(best)


@kernel
def _end_round(st: State, fx: Fixed, g: int) -> None:
    """Score the round, then end the match or deal the next round (the engine's _end_round
    and, for the batch, next_round at once)."""
    Z = st.Z
    _score(st, fx, g, Z[g, CALLER])
    Z[g, ROUND_CALLER] = Z[g, CALLER]
    Z[g, PLAYED] += 1
    Z[g, HELD] = -1
    Z[g, PENDING] = 0
    Z[g, ROUND_ENDED] = 1
    if _match_over(st, fx, g):
        Z[g, PHASE] = MATCH_OVER
        Z[g, MATCH_ENDED] = 1
        return
    Z[g, PHASE] = ROUND_OVER
    _deal(st, fx, g, _next_first(st, fx, g))
