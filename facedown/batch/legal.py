"""The legal actions of each game's deciding seat, compiled: the mask, and random play from it.

:func:`legal_list` writes the codec indexes of every action the deciding seat of one game may
take now into a buffer, exactly as the engine lists them (``legal_actions`` plus
``set_replaces``; in a TAP window: PASS and that seat's taps).  :func:`masks` turns them into the
legal mask of every game, :func:`random_play` draws one of them per game uniformly (a legal call
only with a given probability).  Both read one list (:func:`_listing`), so the random player
covers the mask.  The random player inlines it (rather than call a compiled function with a
dozen arrays per game and decision), and it says where the call and the taps lie in the list,
so that the player does not look each action up to set them apart: together a quarter less time
per turn (docs/batch.md).  The codec indexes come from the index tables, a bundle of their own
(:class:`.bundles.Tables`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .bundles import Fixed, Plain, State, Tables
from .jit import I64, inline, kernel
from .kernels import actor_of, needs_keys, step_one, window_offset
from .layout import (
    CALL_AFTER_ACTION,
    CALL_AT_START,
    CALLER,
    HOLDING,
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_END_TURN,
    K_SKIP,
    K_TAKE,
    K_UNDO,
    MATCH_ENDED,
    MATCH_OVER,
    NDISC,
    NDRAW,
    OPENING,
    OPENING_PEEK,
    PEEK_BIT,
    PENDING,
    PHASE,
    PLACES,
    POWERS,
    RETURN_TAKEN,
    ROUND_ENDED,
    SET_REPLACE,
    SPY_BIT,
    SWAP_BIT,
    TAKEN,
    TAP,
    TURN_END,
    TURN_START,
    UNDO_TAKE,
    N,
)


@inline
def _powers(  # noqa: C901 - the three powers' lists
    st: State, fx: Fixed, T: Tables, g: int, p: int, occ: I64, m: int, buf: I64, count: int
) -> int:
    """The pending powers' actions (peek own, spy others', swap own with others')."""
    S, hands = st.S, st.hands
    n = fx.R[N]
    pending = st.Z[g, PENDING]
    if pending & PEEK_BIT:
        for a in range(m):
            buf[count] = T.peek[occ[a]]
            count += 1
    if pending & SPY_BIT:
        for d in range(1, n):
            t = (p + d) % n
            for s in range(S[g, PLACES, t]):
                if hands[g, t, s] >= 0:
                    buf[count] = T.spy[d, s]
                    count += 1
    if pending & SWAP_BIT:
        for a in range(m):
            for d in range(1, n):
                t = (p + d) % n
                for s in range(S[g, PLACES, t]):
                    if hands[g, t, s] >= 0:
                        buf[count] = T.swap[occ[a], d, s]
                        count += 1
    return count


@inline
def _replaces(fx: Fixed, T: Tables, occ: I64, m: int, buf: I64, count: int) -> int:
    """Single replaces of every occupied slot, and the sets the rules allow."""
    rep = T.rep
    for a in range(m):
        buf[count] = rep[occ[a], 0, 0, 0]
        count += 1
    if fx.R[SET_REPLACE] == 0 or m < 2:
        return count
    largest = min(4, m)
    for a in range(m):
        for b in range(a + 1, m):
            buf[count] = rep[occ[a], occ[b] + 1, 0, 0]
            count += 1
            if largest < 3:
                continue
            for c in range(b + 1, m):
                buf[count] = rep[occ[a], occ[b] + 1, occ[c] + 1, 0]
                count += 1
                if largest < 4:
                    continue
                for d in range(c + 1, m):
                    buf[count] = rep[occ[a], occ[b] + 1, occ[c] + 1, occ[d] + 1]
                    count += 1
    return count


@inline
def _listing(  # noqa: C901 - one branch per phase, as the engine's TURN_KINDS
    st: State, fx: Fixed, T: Tables, g: int, buf: I64, occ: I64
) -> tuple[int, int, int]:
    """Write the legal action indexes of game ``g``'s deciding seat into ``buf``, in the
    engine's order.  Returns their count, how many of them are taps (always the last ones) and
    whether a call is among them (always just before the taps)."""
    Z, hands, R = st.Z, st.hands, fx.R
    phase = Z[g, PHASE]
    count = 0
    p = actor_of(st, fx, g)
    if p < 0:
        return 0, 0, 0
    if phase == OPENING:
        for i in range(T.opening.size):
            idx = T.opening[i]
            ok = True
            for j in range(R[OPENING_PEEK]):
                if hands[g, p, fx.CS[idx, j]] < 0:
                    ok = False
            if ok:
                buf[count] = idx
                count += 1
        return count, 0, 0
    if phase < TURN_START or phase > TURN_END:
        return 0, 0, 0
    m = 0
    for s in range(st.S[g, PLACES, p]):
        if hands[g, p, s] >= 0:
            occ[m] = s
            m += 1
    if window_offset(st, fx, g) > 0:  # a TAP window: PASS, or a tap
        buf[0] = 0
        count = 1
        for a in range(m):
            buf[count] = T.tap[occ[a]]
            count += 1
        return count, m, 0
    simple = T.simple
    ndraw, ndisc = Z[g, NDRAW], Z[g, NDISC]
    calls = 0
    if phase == TURN_START:
        if ndraw > 0 or ndisc >= 2:
            buf[count] = simple[K_DRAW]
            count += 1
        if ndisc > 0 and (m > 0 or R[RETURN_TAKEN]):
            buf[count] = simple[K_TAKE]
            count += 1
        if R[CALL_AT_START] and Z[g, CALLER] < 0:
            buf[count] = simple[K_CALL]
            count += 1
            calls = 1
    elif phase == HOLDING:
        count = _replaces(fx, T, occ, m, buf, count)
        buf[count] = simple[K_DISCARD]
        count += 1
        count = _powers(st, fx, T, g, p, occ, m, buf, count)
    elif phase == TAKEN:
        count = _replaces(fx, T, occ, m, buf, count)
        if R[UNDO_TAKE]:
            buf[count] = simple[K_UNDO]
            count += 1
        if R[RETURN_TAKEN] or m == 0:
            buf[count] = simple[K_DISCARD]
            count += 1
    elif phase == POWERS:
        count = _powers(st, fx, T, g, p, occ, m, buf, count)
        buf[count] = simple[K_SKIP]
        count += 1
    else:  # TURN_END
        buf[count] = simple[K_END_TURN]
        count += 1
        if R[CALL_AFTER_ACTION] and Z[g, CALLER] < 0:
            buf[count] = simple[K_CALL]
            count += 1
            calls = 1
    taps = 0
    if R[TAP] and ndisc > 0:
        for a in range(m):
            buf[count] = T.tap[occ[a]]
            count += 1
        taps = m
    return count, taps, calls


@kernel
def legal_list(st: State, fx: Fixed, T: Tables, g: int, buf: I64, occ: I64) -> int:
    """Write the legal action indexes of game ``g``'s deciding seat into ``buf``; their count."""
    return _listing(st, fx, T, g, buf, occ)[0]


@kernel
def masks(state: Plain, fixed: Plain, tables: Plain, buf: I64, occ: I64, out: Any) -> None:
    """``out[g, i]``: action ``i`` is legal for game ``g``'s deciding seat (``out`` zeroed);
    ``buf`` and ``occ`` are scratch (the codec's size, a hand's places)."""
    st, fx, T = State(*state), Fixed(*fixed), Tables(*tables)
    for g in range(st.Z.shape[0]):
        count = legal_list(st, fx, T, g, buf, occ)
        for i in range(count):
            out[g, buf[i]] = True


@inline
def choose(
    st: State, fx: Fixed, T: Tables, g: int, buf: I64, occ: I64, call: float, tap: float
) -> int:
    """A legal action of game ``g``'s deciding seat drawn uniformly, except for calls and taps:
    a legal call is made with probability ``call`` (or when it is the only action), a tap
    (uniform among the seat's cards) with probability ``tap`` (or when only taps are legal),
    and otherwise they are left out.  Draws from numba's generator."""
    count, ntaps, calls = _listing(st, fx, T, g, buf, occ)
    if count == 0:
        return 0
    rest = count - ntaps - calls  # buf[:rest] the others, then the call, then the taps
    u = np.random.random()
    if calls and (np.random.random() < call or rest + ntaps == 0):
        return int(buf[rest])
    if ntaps > 0 and (np.random.random() < tap or rest == 0):
        return int(buf[count - ntaps + int(u * ntaps)])
    return int(buf[int(u * rest)])


@kernel
def random_play(
    state: Plain,
    fixed: Plain,
    tables: Plain,
    buf: I64,
    occ: I64,
    seed: int,
    call: float,
    tap: float,
    out: I64,
) -> None:
    """Per game, :func:`choose`'s action (numba's generator seeded with ``seed`` first);
    ``buf`` and ``occ`` are scratch."""
    st, fx, T = State(*state), Fixed(*fixed), Tables(*tables)
    np.random.seed(seed)
    for g in range(st.Z.shape[0]):
        out[g] = choose(st, fx, T, g, buf, occ, call, tap)


@kernel
def play_random(
    state: Plain,
    fixed: Plain,
    tables: Plain,
    buf: I64,
    occ: I64,
    seed: int,
    call: float,
    tap: float,
    steps: int,
    todo: I64,
) -> tuple[int, int]:
    """Random play (:func:`choose`) and the step in one loop: each game makes up to ``steps``
    decisions, one after the other, and stops early when its match ends or it needs keys
    (listed in ``todo``); ``ROUND_ENDED`` and ``MATCH_ENDED`` say whether one ended during the
    call.  Returns how many games need keys and how many decisions were made."""
    st, fx, T = State(*state), Fixed(*fixed), Tables(*tables)
    Z = st.Z
    np.random.seed(seed)
    count = 0
    made = 0
    for g in range(Z.shape[0]):
        Z[g, ROUND_ENDED] = 0
        Z[g, MATCH_ENDED] = 0
        for _ in range(steps):
            if Z[g, PHASE] == MATCH_OVER:
                break
            a = choose(st, fx, T, g, buf, occ, call, tap)
            step_one(st, fx, g, a)
            made += 1
            if needs_keys(st, fx, g):
                todo[count] = g
                count += 1
                break
    return count, made
